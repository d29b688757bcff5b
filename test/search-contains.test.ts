import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { isPostgres } from '../src/db/index.js';
import { containsAny, containsIndexed, SUBSTRING_INDEXED } from '../src/shared/search.js';
import { describeEachDb } from './helpers.js';

/**
 * The `q=` of the lists answered from the substring index (SQLite FTS5 trigram, PostgreSQL
 * pg_trgm) finds exactly the rows the plain scan (`fold(column) like '%term%'`) finds, for any
 * term: random text with umlauts, decomposed accents, LIKE and FTS5 syntax characters, terms of
 * one to six characters, after inserts, updates and deletes.
 */

// A seeded generator, so that a failure can be run again as it was.
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = [
  ...'abcABCxyz019 -.@',
  'ä',
  'Ä',
  'ö',
  'Ü',
  'ü',
  'ß',
  'ẞ',
  'é',
  'e\u0301', // é decomposed: fold() composes it
  'É',
  '%',
  '_',
  '\\',
  '"',
  "'",
  '*',
  ':',
  '{',
  '(',
  'İ',
  'Σ',
  'ς',
];

const FIXED_TERMS = [
  '%',
  '_',
  '%%',
  '50%',
  'a_b',
  '\\',
  '"',
  '""',
  '"a"',
  "'",
  'a*',
  'a:b',
  '{a}',
  'NEAR(a b)',
  'ä',
  'Ä',
  'müll',
  'MÜLL',
  'Müller',
  'muller',
  'ss',
  'ß',
  'é',
  'É',
  'e\u0301',
  'e\u0301x',
  '  ',
  '   ',
  'a b',
  '@b.',
  'abc',
  'ABC',
  'zzzz',
];

describeEachDb('q= of the lists: the substring index answers as the scan does', (ctx) => {
  const rnd = random(20261207);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const text = (max: number) => {
    const n = Math.floor(rnd() * (max + 1));
    let s = '';
    for (let i = 0; i < n; i++) s += pick(ALPHABET);
    return s;
  };
  const maybe = (max: number) => (rnd() < 0.2 ? null : text(max));
  const values: string[] = [];
  let clientId = 0;
  let projectId = 0;

  async function ids(table: string, where: ReturnType<typeof containsIndexed>) {
    const rows = await (ctx.db as any)
      .selectFrom(table)
      .select('id')
      .where('account_id', '=', ctx.account.accountId)
      .where(where)
      .orderBy('id')
      .execute();
    return rows.map((r: { id: number }) => Number(r.id));
  }

  const terms = () => {
    const out = [...FIXED_TERMS];
    for (let i = 0; i < 60; i++) {
      // A piece of a stored value (found at least once), in another case now and then.
      const v = pick(values);
      const from = Math.floor(rnd() * v.length);
      const piece = v.slice(from, from + 1 + Math.floor(rnd() * 5));
      out.push(rnd() < 0.3 ? piece.toUpperCase() : piece);
      // And made-up terms of one to four characters.
      let t = '';
      const n = 1 + Math.floor(rnd() * 4);
      for (let j = 0; j < n; j++) t += pick(ALPHABET);
      out.push(t);
    }
    return out.filter((t) => t !== '');
  };

  async function compareAll(label: string) {
    const checked = terms();
    for (const [table, columns] of Object.entries(SUBSTRING_INDEXED)) {
      // Every column together, as the list searches, and the first one alone.
      for (const cols of [columns as string[], [columns[0]!]]) {
        for (const term of checked) {
          const scanned = await ids(table, (eb) => containsAny(eb, cols, term));
          const indexed = await ids(table, containsIndexed(ctx.db, table, cols, term));
          assert.deepEqual(indexed, scanned, `${label}: ${table} [${cols}] q=${JSON.stringify(term)}`);
        }
      }
    }
  }

  before(async () => {
    const accountId = ctx.account.accountId;
    for (let i = 0; i < 60; i++) {
      const name = `${text(10)}${pick(['', ' Müller', ' GmbH', ' 50%'])}`;
      const email = maybe(12);
      const client = await ctx.db
        .insertInto('clients')
        .values({ account_id: accountId, name, shortcode: rnd() < 0.5 ? `${text(4)}#${i}` : null, email })
        .returning('id')
        .executeTakeFirstOrThrow();
      clientId = client.id;
      values.push(name, email ?? '');
      const identifier = rnd() < 0.5 ? `${text(5)}/${i}` : null;
      const project = await ctx.db
        .insertInto('projects')
        .values({ account_id: accountId, client_id: clientId, name: text(12), identifier })
        .returning(['id', 'name'])
        .executeTakeFirstOrThrow();
      projectId = project.id;
      values.push(project.name, identifier ?? '');
      const task = text(14);
      await ctx.db
        .insertInto('tasks')
        .values({ account_id: accountId, project_id: projectId, name: task })
        .execute();
      const supplier = { name: text(10), vat_id: maybe(8), email: maybe(10), external_id: maybe(6) };
      await ctx.db
        .insertInto('suppliers')
        .values({ account_id: accountId, ...supplier })
        .execute();
      values.push(task, ...Object.values(supplier).map((v) => v ?? ''));
    }
    // Another account's rows: never found.
    const other = await ctx.db
      .insertInto('clients')
      .values({ account_id: ctx.other.accountId, name: 'Müller 50% abc' })
      .returning('id')
      .executeTakeFirstOrThrow();
    assert.ok(other.id);
  });

  it('finds the rows the scan finds, for every term', async () => {
    await compareAll('inserted');
  });

  it('stays in step with updates and deletes', async () => {
    const accountId = ctx.account.accountId;
    for (const table of ['clients', 'projects', 'tasks', 'suppliers'] as const) {
      const rows = await ctx.db
        .selectFrom(table)
        .select('id')
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute();
      for (const [i, r] of rows.entries()) {
        if (i % 3 === 0) {
          const name = text(10);
          values.push(name);
          await ctx.db.updateTable(table).set({ name }).where('id', '=', r.id).execute();
        } else if (i % 7 === 0 && table === 'suppliers') {
          await ctx.db.deleteFrom(table).where('id', '=', r.id).execute();
        } else if (i % 5 === 0) {
          // An update of another column leaves the searched text as it was.
          await ctx.db
            .updateTable(table)
            .set({ updated_at: new Date().toISOString() })
            .where('id', '=', r.id)
            .execute();
        }
      }
    }
    await ctx.db
      .deleteFrom('tasks')
      .where('id', '=', (await ctx.db.selectFrom('tasks').select('id').executeTakeFirstOrThrow()).id)
      .execute();
    await compareAll('updated');
    // A renamed row is found by its new name only.
    const renamed = await ctx.db
      .updateTable('clients')
      .set({ name: 'Zebrafink Werke' })
      .where('account_id', '=', accountId)
      .where('id', '=', clientId)
      .returning('id')
      .executeTakeFirstOrThrow();
    assert.deepEqual(await ids('clients', containsIndexed(ctx.db, 'clients', ['name'], 'ZEBRAFINK')), [
      renamed.id,
    ]);
    await ctx.db.updateTable('clients').set({ name: 'Amsel' }).where('id', '=', renamed.id).execute();
    assert.deepEqual(await ids('clients', containsIndexed(ctx.db, 'clients', ['name'], 'zebrafink')), []);
  });

  it('answers from the index', async () => {
    if (isPostgres(ctx.db)) {
      // With enough rows the planner would choose the GIN index itself; here it is made to.
      const plan = await ctx.db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        await sql`set local enable_indexscan = off`.execute(trx);
        const query = trx
          .selectFrom('clients')
          .select('id')
          .where(containsIndexed(trx, 'clients', ['name', 'shortcode', 'email'], 'müller'));
        const { sql: text, parameters } = query.compile();
        const { rows } = await sql
          .raw(`explain ${text.replace(/\$(\d+)/g, (_, n) => literal(parameters[Number(n) - 1]))}`)
          .execute(trx);
        return rows.map((r) => Object.values(r as object)[0]).join('\n');
      });
      for (const c of ['name', 'shortcode', 'email'])
        assert.match(plan, new RegExp(`clients_${c}_trgm`), plan);
      return;
    }
    const query = ctx.db
      .selectFrom('clients')
      .select('id')
      .where('account_id', '=', ctx.account.accountId)
      .where(containsIndexed(ctx.db, 'clients', ['name', 'shortcode', 'email'], 'müller'))
      .compile();
    let i = 0;
    const inlined = query.sql.replace(/\?/g, () => literal(query.parameters[i++]));
    const { rows } = await sql.raw(`explain query plan ${inlined}`).execute(ctx.db);
    const plan = rows.map((r) => (r as { detail: string }).detail).join('\n');
    assert.match(plan, /clients_trgm VIRTUAL TABLE/, plan);
  });
});

function literal(v: unknown): string {
  return typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`;
}
