/**
 * `?q=` search on /contacts and /companies with 100,000 contacts and 10,000 companies in one
 * account, plus a neighbour account a fifth of that size (tenant filtering has work to do).
 * Runs the list queries of the repositories (the SQL the endpoints run) on a fresh SQLite
 * file, and on PostgreSQL when BENCH_DATABASE_URL is set (in a schema of its own, dropped
 * afterwards). The unindexed LIKE scan the search replaced is measured as a baseline. The
 * `/search` rows run GET /search's full-text query over the same data (hits: at most 20).
 *
 *   npx tsx bench/contacts-search.bench.ts            (CONTACTS=20000 for a quicker run)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { createDb, type Db, type DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { companySearch, listCompanies } from '../src/modules/companies/companies.repository.js';
import { contactSearch, listContacts } from '../src/modules/contacts/contacts.repository.js';
import { SEARCH_KINDS, searchWords } from '../src/modules/search/search.domain.js';
import { searchDocs } from '../src/modules/search/search.repository.js';
import { paginate } from '../src/shared/paging.js';
import { containsAny } from '../src/shared/search.js';
import { environment, type Metric, markdown, writeReport } from './lib.js';

const CONTACTS = Number(process.env.CONTACTS ?? 100_000);
const COMPANIES = Math.max(10, Math.round(CONTACTS / 10));
/** A second account shares the search tables (the SQLite FTS index is not per account). */
const NEIGHBOUR = Math.round(CONTACTS / 5);
const RUNS = 15;

const FIRST = [
  'Anna',
  'Ben',
  'Clara',
  'David',
  'Emma',
  'Felix',
  'Greta',
  'Hannes',
  'Ida',
  'Jonas',
  'Karla',
  'Lukas',
];
const LAST = [
  'Schmidt',
  'Müller',
  'Weber',
  'Wagner',
  'Becker',
  'Hoffmann',
  'Koch',
  'Richter',
  'Klein',
  'Wolf',
];
const WORDS = ['Blue', 'Harbor', 'Nordic', 'Alpine', 'Summit', 'River', 'Cedar', 'Granite', 'Maple', 'Orbit'];

// mulberry32: deterministic, so every run and database gets the same data.
let seed = 42;
const rnd = (n: number) => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) % n;
};
const pick = <T>(xs: T[]) => xs[rnd(xs.length)]!;

async function load(db: Db, accountName: string, contacts: number): Promise<number> {
  const companies = Math.max(10, Math.round(contacts / 10));
  const { id: accountId } = await db
    .insertInto('accounts')
    .values({ name: accountName })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.transaction().execute(async (trx) => {
    const companyIds: number[] = [];
    for (let i = 0; i < companies; i += 500) {
      const rows = [];
      for (let j = i; j < Math.min(i + 500, companies); j++) {
        const name = `${pick(WORDS)} ${pick(WORDS)} ${j} GmbH`;
        const email = `info@company${j}.example`;
        rows.push({ account_id: accountId, name, email, ...companySearch({ name, email }) });
      }
      const ids = await trx.insertInto('companies').values(rows).returning('id').execute();
      companyIds.push(...ids.map((r) => r.id));
    }
    for (let i = 0; i < contacts; i += 500) {
      const rows = [];
      for (let j = i; j < Math.min(i + 500, contacts); j++) {
        const first_name = pick(FIRST);
        // One contact with a rare name, to measure a selective search.
        const last_name = j === Math.floor(contacts / 2) ? 'Quackenbush' : pick(LAST);
        const email = `${first_name}.${last_name}${j}@mail${rnd(50)}.example`.toLowerCase();
        const company_id = rnd(10) < 6 ? companyIds[rnd(companyIds.length)]! : null;
        rows.push({
          account_id: accountId,
          first_name,
          last_name,
          email,
          company_id,
          ...contactSearch({ first_name, last_name, email }),
        });
      }
      await trx.insertInto('contacts').values(rows).execute();
    }
  });
  return accountId;
}

/** The search before indexes: lower(column) LIKE over every row of the account. */
function unindexedContacts(db: Db, accountId: number, term: string) {
  const qb = db
    .selectFrom('contacts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('archived_at', 'is', null)
    .where((eb) => containsAny(eb, ['first_name', 'last_name', 'email'], term))
    .orderBy('id');
  return paginate(qb, { page: 1, per_page: 50 });
}

async function time(fn: () => Promise<{ total: number }>) {
  for (let i = 0; i < 2; i++) await fn();
  const ms: number[] = [];
  let total = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = process.hrtime.bigint();
    total = (await fn()).total;
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)]!, p95: ms[Math.ceil(ms.length * 0.95) - 1]!, total };
}

async function benchOne(kind: 'sqlite' | 'postgres', handle: DbHandle): Promise<Metric[]> {
  const { db } = handle;
  seed = 42;
  await migrateToLatest(db);
  const t0 = Date.now();
  const accountId = await load(db, 'Bench', CONTACTS);
  await load(db, 'Neighbour', NEIGHBOUR);
  const loadSeconds = (Date.now() - t0) / 1000;
  if (kind === 'postgres') await sql`analyze`.execute(db);

  const contactQuery = (q?: string) => () =>
    listContacts(db, accountId, { page: 1, per_page: 50, ...(q === undefined ? {} : { q }) });
  // GET /search's query (search.repository.ts): every kind, 20 hits, ranked, with snippets.
  const everywhere = (q: string) => async () => ({
    total: (await searchDocs(db, accountId, [...SEARCH_KINDS], searchWords(q), 20)).length,
  });
  const cases: [string, () => Promise<{ total: number }>][] = [
    ['/search: rare name "quackenbush"', everywhere('quackenbush')],
    ['/search: common name "müller" (~10%), ranked', everywhere('müller')],
    ['/search: spelled out "mueller"', everywhere('mueller')],
    ['/search: prefix "qu"', everywhere('qu')],
    ['/search: two words "anna schm"', everywhere('anna schm')],
    ['contacts: rare name "quackenbush"', contactQuery('quackenbush')],
    ['contacts: email fragment "12345@mail"', contactQuery('12345@mail')],
    ['contacts: company name "4711 gmbh"', contactQuery('4711 gmbh')],
    ['contacts: common name "müller" (~10%)', contactQuery('MÜLLER')],
    ['contacts: 2-letter term "qu" (no trigram)', contactQuery('qu')],
    ['contacts: no term, first page', contactQuery()],
    ['companies: "77 gmbh"', () => listCompanies(db, accountId, { page: 1, per_page: 50, q: '77 gmbh' })],
    [
      'baseline, unindexed lower() LIKE: "quackenbush"',
      () => unindexedContacts(db, accountId, 'quackenbush'),
    ],
  ];
  const results: Metric[] = [
    {
      metric: `${kind}: load ${CONTACTS} + ${NEIGHBOUR} contacts, ${COMPANIES} + ${NEIGHBOUR / 10} companies`,
      value: loadSeconds,
      unit: 's',
    },
  ];
  for (const [name, fn] of cases) {
    const r = await time(fn);
    results.push({
      metric: `${kind}: ${name}`,
      value: Math.round(r.median * 100) / 100,
      unit: 'ms (median)',
      note: `p95 ${r.p95.toFixed(2)} ms, ${r.total} matches, ${RUNS} runs, ${name.startsWith('/search') ? 'best 20 hits' : 'page of 50 + count'}`,
    });
  }
  return results;
}

async function main() {
  const results: Metric[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'contacts-bench-'));
  const sqlite = createDb({ kind: 'sqlite', file: join(dir, 'bench.sqlite') });
  try {
    results.push(...(await benchOne('sqlite', sqlite)));
  } finally {
    await sqlite.destroy();
    rmSync(dir, { recursive: true, force: true });
  }

  const url = process.env.BENCH_DATABASE_URL;
  if (url) {
    const schema = `bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const handle = createDb({ kind: 'postgres', url, schema });
    try {
      results.push(...(await benchOne('postgres', handle)));
    } finally {
      await handle.destroy();
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    }
  }

  const report = {
    name: 'contacts-search',
    date: new Date().toISOString(),
    environment: { ...environment(), contacts: CONTACTS, companies: COMPANIES },
    results,
  };
  console.log(markdown(report));
  await writeReport(report);
}

await main();
