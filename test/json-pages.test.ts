// Lists whose unfiltered pages SQLite writes as the answer's JSON (shared/json-pages.ts): for
// random rows (unicode, quotes, backslashes, control characters, nulls, flags, big and small
// numbers) each page answers the very bytes the mapped rows serialized give. `sort=id` names
// the same order but reads rows and maps them (the plain path), so the two answers' bodies
// must be equal to the byte, forwards and for pages read backwards from the end.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import * as clients from '../src/modules/clients/clients.repository.js';
import * as contacts from '../src/modules/contacts/contacts.repository.js';
import * as projects from '../src/modules/projects/projects.repository.js';
import * as tasks from '../src/modules/tasks/tasks.repository.js';
import { type Api, describeEachDb } from './helpers.js';

/** A small seeded generator, so that a failing run can be repeated. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const PIECES = [
    'a',
    'Zß',
    ' ',
    '"',
    '\\',
    '/',
    '\n',
    '\r\n',
    '\t',
    '\b\f',
    '\u0000',
    '\u0001',
    '\u001f',
    '\u007f',
    '\u0080',
    '\u00ad',
    '\u2028\u2029',
    '\ufeff',
    'Müller',
    '€',
    '😀',
    '\ud800',
    '中文',
    '<script>',
    "'",
    '{}[],:',
  ];
  const text = (max = 12) => Array.from({ length: 1 + int(max) }, () => PIECES[int(PIECES.length)]).join('');
  const NUMBERS = [0, -0, 1, -5, 0.1, 0.30000000000000004, 1e-7, 123456.789, 1e15, -1e15, 1e21, 2 ** 53];
  /**
   * A custom_fields column as JSON.stringify writes it: keys as definitions allow them
   * (`^[a-z][a-z0-9_]{0,63}$`; the serializer would drop a key holding a line break), values of
   * every type.
   */
  const customFields = () => {
    const keys = ['a', 'zahl', 'x10', 'b_2', 'z'.repeat(64)];
    const out: Record<string, unknown> = {};
    for (let i = int(5); i > 0; i--)
      out[keys[int(keys.length)]! + (int(2) ? '' : String(int(3)))] = [
        () => text(),
        () => NUMBERS[int(NUMBERS.length)],
        () => int(2) === 1,
        () => null,
      ][int(4)]!();
    return JSON.stringify(out);
  };
  return {
    int,
    text,
    customFields,
    /** null a third of the time. */
    maybe: <T>(value: () => T): T | null => (int(3) === 0 ? null : value()),
    pick: <T>(xs: readonly T[]): T => xs[int(xs.length)]!,
  };
}

const SEED = Number(process.env.JSON_PAGES_SEED ?? Date.now() % 100000);

describeEachDb('list pages written by the database', (ctx) => {
  let api: Api;
  const rnd = random(SEED);

  /** Every page of `path` at `perPage`, the default order against `sort=id`: the same bytes. */
  async function samePages(path: string, perPage: number) {
    const first = await api.get(`${path}${path.includes('?') ? '&' : '?'}per_page=${perPage}`);
    assert.equal(first.status, 200, first.text);
    const pages = Math.max(1, Math.ceil(first.body.meta.total / perPage));
    assert.ok(first.body.meta.total > 0, `${path}: nothing listed`);
    for (let page = 1; page <= pages + 1; page++) {
      const q = `${path}${path.includes('?') ? '&' : '?'}per_page=${perPage}&page=${page}`;
      const fast = await api.get(q);
      const plain = await api.get(`${q}&sort=id`);
      assert.equal(fast.status, 200, fast.text);
      assert.equal(fast.headers['content-type'], plain.headers['content-type']);
      assert.equal(fast.text, plain.text, `${q} (seed ${SEED})`);
    }
  }

  /** PostgreSQL keeps no NUL in text: the same rows without it there. */
  const stored = (rows: Record<string, unknown>[]) =>
    ctx.kind === 'postgres'
      ? rows.map((r) =>
          Object.fromEntries(
            Object.entries(r).map(([k, v]) => [k, typeof v === 'string' ? v.replaceAll('\u0000', '') : v]),
          ),
        )
      : rows;

  before(async () => {
    api = await ctx.as('client:read contact-data:read task-management:read');
    const accountId = ctx.account.accountId;
    const rows = Array.from({ length: 37 }, (_, i) => ({
      account_id: accountId,
      name: rnd.text(),
      shortcode: rnd.maybe(() => `S${i}${rnd.text(3)}`),
      external_id: rnd.maybe(() => `X${i}${rnd.text(3)}`),
      email: rnd.maybe(() => rnd.text()),
      phone: rnd.maybe(() => rnd.text()),
      website: rnd.maybe(() => rnd.text()),
      street: rnd.maybe(() => rnd.text(40)),
      zip: rnd.maybe(() => rnd.text(3)),
      city: rnd.maybe(() => rnd.text()),
      country_code: rnd.maybe(() => rnd.pick(['DE', 'AT', 'CH'])),
      vat_id: rnd.maybe(() => rnd.text()),
      tax_number: rnd.maybe(() => rnd.text()),
      language: rnd.maybe(() => rnd.pick(['de', 'en'])),
      buyer_reference: rnd.maybe(() => rnd.text()),
      invoice_email: rnd.maybe(() => rnd.text()),
      einvoice_format: rnd.pick(['zugferd', 'xrechnung_cii', 'xrechnung_ubl', 'pdf_and_xrechnung']),
      is_consumer: rnd.int(2),
      dunning_blocked: rnd.int(2),
      currency: rnd.maybe(() => rnd.pick(['EUR', 'USD'])),
      payment_term_days: rnd.maybe(() => rnd.pick([0, 1, 14, 3650, rnd.int(3651)])),
      notes: rnd.maybe(() => rnd.text(200)),
      archived_at: rnd.int(4) === 0 ? '2026-03-01T10:00:00.000Z' : null,
    }));
    await ctx.db
      .insertInto('clients')
      .values(stored(rows) as never)
      .execute();
    const companies = await ctx.db
      .insertInto('companies')
      .values([{ account_id: accountId, name: 'Firma' }])
      .returning('id')
      .execute();
    const people = Array.from({ length: 41 }, (_, i) => ({
      account_id: accountId,
      company_id: rnd.maybe(() => companies[0]!.id),
      external_id: rnd.maybe(() => `E${i}${rnd.text(3)}`),
      salutation: rnd.maybe(() => rnd.text(3)),
      title: rnd.maybe(() => rnd.text(3)),
      first_name: rnd.maybe(() => rnd.text()),
      last_name: rnd.text(),
      email: rnd.maybe(() => rnd.text()),
      phone: rnd.maybe(() => rnd.text()),
      mobile: rnd.maybe(() => rnd.text()),
      position: rnd.maybe(() => rnd.text()),
      department: rnd.maybe(() => rnd.text()),
      street: rnd.maybe(() => rnd.text(40)),
      zip: rnd.maybe(() => rnd.text(3)),
      city: rnd.maybe(() => rnd.text()),
      country_code: rnd.maybe(() => rnd.pick(['DE', 'AT'])),
      notes: rnd.maybe(() => rnd.text(200)),
      custom_fields: rnd.pick([rnd.customFields(), rnd.customFields(), '{}', '', 'null', '[1]']),
      archived_at: rnd.int(4) === 0 ? '2026-03-01T10:00:00.000Z' : null,
    }));
    await ctx.db
      .insertInto('contacts')
      .values(stored(people) as never)
      .execute();
    const clientId = (
      await ctx.db
        .selectFrom('clients')
        .select('id')
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow()
    ).id;
    const groups = await ctx.db
      .insertInto('project_groups')
      .values([1, 2, 3].map((i) => ({ account_id: accountId, name: `G${i}` })))
      .returning('id')
      .execute();
    // Cents of every size an amount may have (rates up to 10^7, budgets up to 10^10), and null.
    const cents = (digits = 13) =>
      rnd.maybe(() =>
        rnd.pick([0, 1, 5, 10, 99, 100, 1990, 1999, 123456, 10 ** rnd.int(digits) + rnd.int(100)]),
      );
    const works = Array.from({ length: 23 }, (_, i) => ({
      account_id: accountId,
      client_id: clientId,
      identifier: rnd.maybe(() => `P${i}${rnd.text(3)}`),
      name: rnd.text(),
      description: rnd.maybe(() => rnd.text(100)),
      status: rnd.pick(['active', 'completed', 'on_hold']),
      billable: rnd.int(2),
      start_date: rnd.maybe(() => '2026-01-05'),
      end_date: rnd.maybe(() => '2026-12-31'),
      budget_minutes: rnd.maybe(() => rnd.int(100_000_000)),
      billing_mode: rnd.pick(['time_and_materials', 'fixed_price']),
      hourly_rate: cents(10),
      budget_amount: cents(),
      currency: rnd.maybe(() => rnd.pick(['EUR', 'USD'])),
      custom_fields: rnd.pick([rnd.customFields(), '{}']),
      archived_at: rnd.int(4) === 0 ? '2026-03-01T10:00:00.000Z' : null,
    }));
    const projectIds = await ctx.db
      .insertInto('projects')
      .values(stored(works) as never)
      .returning('id')
      .execute();
    const links = projectIds.flatMap((p) =>
      groups.filter(() => rnd.int(2) === 0).map((g) => ({ project_group_id: g.id, project_id: p.id })),
    );
    await ctx.db.insertInto('project_group_projects').values(links.reverse()).execute();
    const todo = Array.from({ length: 29 }, (_, i) => ({
      account_id: accountId,
      project_id: rnd.pick(projectIds).id,
      name: rnd.text(),
      description: rnd.maybe(() => rnd.text(100)),
      status: rnd.pick(['open', 'in_progress', 'done']),
      priority: rnd.pick(['low', 'normal', 'high']),
      start_date: rnd.maybe(() => '2026-01-05'),
      due_date: rnd.maybe(() => '2026-02-28'),
      estimate_minutes: rnd.maybe(() => rnd.int(100_000)),
      hourly_rate: cents(10),
      external_id: rnd.maybe(() => `T${i}${rnd.text(3)}`),
      custom_fields: rnd.pick([rnd.customFields(), '{}']),
      completed_at: rnd.maybe(() => '2026-02-01T08:00:00.000Z'),
      archived_at: rnd.int(4) === 0 ? '2026-03-01T10:00:00.000Z' : null,
    }));
    const taskIds = await ctx.db
      .insertInto('tasks')
      .values(stored(todo) as never)
      .returning('id')
      .execute();
    // Files of some tasks (and of a comment, which no task shows), in no order of their owners.
    const files = [...taskIds, ...taskIds]
      .filter(() => rnd.int(3) === 0)
      .map((t) => ({
        account_id: accountId,
        name: rnd.text(),
        content_type: rnd.pick(['application/pdf', 'image/png']),
        size: rnd.pick([0, 1, 123456, 2 ** 40]),
        sha256: 'a'.repeat(64),
        md5: 'b'.repeat(32),
        owner_type: rnd.pick(['task', 'task', 'comment']),
        owner_id: t.id,
      }));
    if (files.length)
      await ctx.db
        .insertInto('files')
        .values(stored(files) as never)
        .execute();
    // Another tenant's rows never show.
    await ctx.db.insertInto('clients').values({ account_id: ctx.other.accountId, name: 'other' }).execute();
  });

  it('SQLite writes the pages of the unfiltered client lists; PostgreSQL reads rows', async () => {
    const page = await clients.listClientsBasic(ctx.db, ctx.account.accountId, { per_page: 5 });
    const full = await clients.listClientsFull(ctx.db, ctx.account.accountId, {
      page: 3,
      per_page: 10,
      archived: true,
    });
    for (const p of [page, full]) {
      assert.equal(typeof p.json === 'string', ctx.kind === 'sqlite');
      assert.equal(p.rows.length === 0, ctx.kind === 'sqlite');
    }
    // Filtered or sorted: rows, mapped.
    const sorted = await clients.listClientsBasic(ctx.db, ctx.account.accountId, { sort: 'name' });
    assert.equal(sorted.json, undefined);
  });

  it('clients, basic and full, active and all: the bytes of the mapped rows', async () => {
    for (const path of ['/clients', '/clients?archived=true', '/clients/full', '/clients/full?archived=true'])
      for (const perPage of [1, 7, 50]) await samePages(path, perPage);
  });

  it('contacts, active and all, with their custom fields: the bytes of the mapped rows', async () => {
    const page = await contacts.listContacts(ctx.db, ctx.account.accountId, { per_page: 5 });
    assert.equal(typeof page.json === 'string', ctx.kind === 'sqlite');
    for (const path of ['/contacts', '/contacts?archived=true'])
      for (const perPage of [1, 6, 50]) await samePages(path, perPage);
  });

  it('projects, active and all, with their groups, amounts and custom fields: the same bytes', async () => {
    const page = await projects.listProjects(ctx.db, ctx.account.accountId, { per_page: 5 });
    assert.equal(typeof page.json === 'string', ctx.kind === 'sqlite');
    for (const path of ['/projects', '/projects?archived=true'])
      for (const perPage of [1, 4, 50]) await samePages(path, perPage);
  });

  it('tasks, active and all, with their files, rates and custom fields: the same bytes', async () => {
    const page = await tasks.listTasks(ctx.db, ctx.account.accountId, { per_page: 5 });
    assert.equal(typeof page.json === 'string', ctx.kind === 'sqlite');
    for (const path of ['/tasks', '/tasks?archived=true'])
      for (const perPage of [1, 5, 50]) await samePages(path, perPage);
    const all = await api.get('/tasks?per_page=100&archived=true');
    assert.ok(all.body.data.some((t: { files: unknown[] }) => t.files.length > 0));
  });

  it('an empty page past the end answers as before', async () => {
    const res = await api.get('/clients?per_page=50&page=9');
    assert.equal(res.text.startsWith('{"data":[],"meta":'), true);
    assert.equal(res.text, (await api.get('/clients?per_page=50&page=9&sort=id')).text);
  });

  it('the JSON parses to what the rows stored are', async () => {
    const res = await api.get('/clients/full?per_page=100&archived=true');
    const stored = await ctx.db
      .selectFrom('clients')
      .select(['id', 'name', 'notes', 'is_consumer', 'payment_term_days'])
      .where('account_id', '=', ctx.account.accountId)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      res.body.data.map((c: Record<string, unknown>) => [
        c.id,
        c.name,
        c.notes,
        c.is_consumer,
        c.payment_term_days,
      ]),
      stored.map((c) => [c.id, c.name, c.notes, c.is_consumer === 1, c.payment_term_days]),
    );
    assert.equal(stored.length, 37);
  });
});
