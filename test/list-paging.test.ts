// Lists (issue 15, issue 16 item 5): kept totals, pages read from the end, cursor paging,
// sort, and invoice totals stored with the lines; each answer compared with the plain one.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { type Api, describeEachDb, expectProblem, pgUrlFor, type Response } from './helpers.js';

const linkOf = (res: { headers: Record<string, unknown> }, rel: string) =>
  new RegExp(`<([^>]+)>; rel="${rel}"`).exec(String(res.headers.link ?? ''))?.[1];

describeEachDb('list paging, sort and totals', (ctx) => {
  let clients: Api;
  let tasks: Api;
  let invoices: Api;
  const names = [
    'delta',
    'alpha',
    'Charlie',
    'bravo',
    'echo',
    'alpha',
    'foxtrot',
    'golf',
    'hotel',
    'india',
    'juliet',
  ];
  let ids: number[] = [];

  before(async () => {
    clients = await ctx.as('client:read client:write');
    tasks = await ctx.as('task-management:read task-management:write client:write');
    invoices = await ctx.as('outgoing-invoice:read outgoing-invoice:write');
    ids = [];
    for (const [i, name] of names.entries()) {
      const res = await clients.post('/clients', {
        name,
        ...(i % 3 === 0 ? {} : { shortcode: `S${10 - i}` }),
      });
      assert.equal(res.status, 201);
      ids.push(res.body.data.id);
    }
    // Another tenant's clients never count here.
    const other = await ctx.as('client:write', { accountId: ctx.other.accountId });
    for (let i = 0; i < 3; i++) await other.post('/clients', { name: `other ${i}` });
  });

  /** Every active client of the account, as the plain list answers (ids ascending). */
  const everything = async (query = '') => (await clients.get(`/clients?per_page=100${query}`)).body;

  it('meta.total is exact from the kept counts through creates, archiving and restoring', async () => {
    const count = async (archived: boolean) =>
      Number(
        (
          await sql<{
            n: number;
          }>`select count(*) as n from clients where account_id = ${ctx.account.accountId} ${archived ? sql`` : sql`and archived_at is null`}`.execute(
            ctx.db,
          )
        ).rows[0]!.n,
      );
    assert.equal((await everything()).meta.total, await count(false));
    assert.equal((await clients.delete(`/clients/${ids[2]}`)).status, 204);
    assert.equal((await clients.delete(`/clients/${ids[2]}`)).status, 204);
    assert.equal((await everything()).meta.total, await count(false));
    assert.equal((await everything('&archived=true')).meta.total, await count(true));
    assert.equal((await clients.get('/clients?per_page=1&archived=true')).body.meta.total, names.length);
    assert.equal((await clients.get('/clients?per_page=1')).body.meta.total, names.length - 1);
    assert.equal((await clients.post(`/clients/${ids[2]}/restore`)).status, 200);
    assert.equal((await everything()).meta.total, names.length);
    // A filtered list counts its rows.
    assert.equal((await clients.get('/clients?q=alpha')).body.meta.total, 2);
  });

  it('every page by number equals the slice of the whole list, those past the middle read from the end', async () => {
    const all = (await everything()).data.map((c: { id: number }) => c.id);
    for (const per of [1, 2, 3, 4]) {
      for (let page = 1; page <= Math.ceil(all.length / per) + 1; page++) {
        const res = await clients.get(`/clients?per_page=${per}&page=${page}`);
        assert.equal(res.status, 200);
        assert.deepEqual(
          res.body.data.map((c: { id: number }) => c.id),
          all.slice((page - 1) * per, page * per),
          `per_page=${per} page=${page}`,
        );
        assert.deepEqual(res.body.meta, { page, per_page: per, total: all.length });
      }
    }
    const sorted = (await clients.get('/clients?per_page=100&sort=-name')).body.data.map(
      (c: { id: number }) => c.id,
    );
    const last = await clients.get('/clients?per_page=4&page=3&sort=-name');
    assert.deepEqual(
      last.body.data.map((c: { id: number }) => c.id),
      sorted.slice(8, 12),
    );
  });

  it('cursor paging: after= walks the list by the Link next, in any sort order, without page numbers', async () => {
    for (const sort of ['', '&sort=-name', '&sort=shortcode', '&sort=-shortcode,name']) {
      const whole = (await clients.get(`/clients?per_page=100${sort}`)).body.data.map(
        (c: { id: number }) => c.id,
      );
      const seen: number[] = [];
      let url: string | undefined = `/api/v1/clients?per_page=3&after=${sort}`;
      let pages = 0;
      while (url) {
        const res: Response = await clients.get(url);
        assert.equal(res.status, 200, url);
        assert.deepEqual(res.body.meta, { per_page: 3, total: whole.length });
        seen.push(...res.body.data.map((c: { id: number }) => c.id));
        assert.match(String(linkOf(res, 'first')), /page=1/);
        url = linkOf(res, 'next');
        if (url) assert.match(url, /after=/);
        assert.ok(++pages < 10);
      }
      assert.deepEqual(seen, whole, `sort ${sort}`);
    }
    // The basic list pages by cursor over columns it does not return.
    const full = await clients.get('/clients/full?per_page=2&after=&sort=-shortcode');
    assert.equal(full.status, 200);
    assert.equal(full.body.data.length, 2);
  });

  it('sort: descending, nulls last ascending and first descending, validated with 422 naming the field', async () => {
    const byName = (await clients.get('/clients?per_page=100&sort=name')).body.data;
    const namesSorted = byName.map((c: { name: string }) => c.name);
    assert.deepEqual(namesSorted, [...namesSorted].sort());
    // Equal names keep ids ascending.
    const alphas = byName
      .filter((c: { name: string }) => c.name === 'alpha')
      .map((c: { id: number }) => c.id);
    assert.deepEqual(alphas, [ids[1], ids[5]]);
    const desc = (await clients.get('/clients?per_page=100&sort=-name,-id')).body.data.map(
      (c: { id: number }) => c.id,
    );
    assert.deepEqual(desc, byName.map((c: { id: number }) => c.id).reverse());
    const short = (await clients.get('/clients?per_page=100&sort=shortcode')).body.data;
    const firstNull = short.findIndex((c: { shortcode: string | null }) => c.shortcode === null);
    assert.ok(
      firstNull > 0 &&
        short.slice(firstNull).every((c: { shortcode: string | null }) => c.shortcode === null),
    );
    const shortDesc = (await clients.get('/clients?per_page=100&sort=-shortcode')).body.data;
    assert.equal(shortDesc[0].shortcode, null);

    const bad = expectProblem(await clients.get('/clients?sort=email'), 422, 'validation_failed');
    assert.equal(bad.errors![0]!.field, 'sort');
    assert.match(bad.detail!, /"email".*sortable: id, name, shortcode/);
    expectProblem(await clients.get('/clients?sort=name,-name'), 422, 'validation_failed');
    expectProblem(await clients.get('/clients?sort=Name;drop'), 422);
    const cursor = linkOf(await clients.get('/clients?per_page=2&after=&sort=name'), 'next')!;
    const after = new URL(cursor, 'http://x').searchParams.get('after')!;
    const mismatch = expectProblem(await clients.get(`/clients?after=${after}`), 422, 'validation_failed');
    assert.equal(mismatch.errors![0]!.field, 'after');
    expectProblem(await clients.get('/clients?after=not-a-cursor'), 422, 'validation_failed');
  });

  it('tasks sort by due date (nulls last) and page by cursor; projects, contacts and invoices take sort', async () => {
    const client = (await tasks.post('/clients', { name: 'Task client' })).body.data;
    const projects = await ctx.as('task-management:read');
    const project = await ctx.db
      .insertInto('projects')
      .values({ account_id: ctx.account.accountId, client_id: client.id, name: 'P' })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const due of ['2026-03-01', null, '2026-01-01', '2026-02-01', null]) {
      const res = await tasks.post('/tasks', { name: `t ${due}`, project_id: project.id, due_date: due });
      assert.equal(res.status, 201, res.text);
    }
    const list = await tasks.get('/tasks?sort=due_date&per_page=100');
    assert.deepEqual(
      list.body.data.map((t: { due_date: string | null }) => t.due_date),
      ['2026-01-01', '2026-02-01', '2026-03-01', null, null],
    );
    const walked: string[] = [];
    let url: string | undefined = '/api/v1/tasks?per_page=2&sort=-due_date&after=';
    while (url) {
      const res: Response = await tasks.get(url);
      walked.push(...res.body.data.map((t: { name: string }) => t.name));
      url = linkOf(res, 'next');
    }
    assert.deepEqual(
      walked,
      [...list.body.data.map((t: { name: string }) => t.name)]
        .reverse()
        .slice(0, 5)
        .sort((a, b) => {
          // -due_date: nulls first (ids ascending among them), then dates descending.
          const order = ['t null', 't 2026-03-01', 't 2026-02-01', 't 2026-01-01'];
          return order.indexOf(a) - order.indexOf(b);
        }),
    );
    expectProblem(await tasks.get('/tasks?sort=description'), 422, 'validation_failed');
    assert.equal((await projects.get('/projects?sort=-name')).status, 200);
    assert.equal((await invoices.get('/outgoing-invoices?sort=-date,invoice_number')).status, 200);
    expectProblem(await invoices.get('/outgoing-invoices?sort=gross_total'), 422, 'validation_failed');
  });

  it('invoice lists show the totals stored with the lines, the same as the invoice itself', async () => {
    const client = (await clients.post('/clients', { name: 'Invoice client' })).body.data;
    const line = (price: number, rate: number, quantity = 1) => ({
      title: 'x',
      quantity,
      unit_price: price,
      tax_rate: rate,
    });
    const inv = await invoices.post('/outgoing-invoices', {
      client_id: client.id,
      line_items: [line(10.05, 19, 3), line(0.35, 7, 7.5), line(99.99, 19)],
    });
    assert.equal(inv.status, 201, inv.text);
    const id = inv.body.data.id;
    const listed = async () =>
      (await invoices.get(`/outgoing-invoices?client_id=${client.id}`)).body.data.find(
        (i: { id: number }) => i.id === id,
      );
    assert.deepEqual(await listed(), (await invoices.get(`/outgoing-invoices/${id}`)).body.data);
    const patched = await invoices.patch(`/outgoing-invoices/${id}`, { line_items: [line(1.13, 19, 3)] });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.gross_total, 4.03);
    assert.deepEqual(await listed(), patched.body.data);
    // Without stored totals (a row written around the service) the lines are added up.
    await ctx.db
      .updateTable('outgoing_invoices')
      .set({ lines_net: null, lines_taxes: null })
      .where('id', '=', id)
      .execute();
    assert.deepEqual(await listed(), patched.body.data);
    // The list without filters (kept count) agrees with the filtered one.
    const all = await invoices.get('/outgoing-invoices?per_page=100');
    assert.equal(all.body.meta.total, all.body.data.length);
  });

  it('kept counts stay exact with two processes writing at once', async () => {
    let dir: string | undefined;
    let url: string;
    if (ctx.kind === 'sqlite') {
      dir = mkdtempSync(join(tmpdir(), 'counts-'));
      url = join(dir, 'db.sqlite');
      const h = createDb({ kind: 'sqlite', file: url });
      await migrateToLatest(h.db);
      await h.db.insertInto('accounts').values({ name: 'race', currency: 'EUR', settings: '{}' }).execute();
      await h.destroy();
    } else {
      const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(ctx.db);
      url = pgUrlFor(rows[0]!.name);
    }
    const h = createDb(ctx.kind === 'sqlite' ? { kind: 'sqlite', file: url } : { kind: 'postgres', url });
    try {
      const account = ctx.kind === 'sqlite' ? 1 : ctx.other.accountId;
      const writer = (tag: string) =>
        new Promise<number | null>((resolve) =>
          spawn(
            process.execPath,
            [
              '--import',
              'tsx',
              join(import.meta.dirname, 'list-counts.writer.ts'),
              url,
              String(account),
              tag,
            ],
            {
              stdio: 'inherit',
            },
          ).on('exit', resolve),
        );
      assert.deepEqual(await Promise.all([writer('a'), writer('b')]), [0, 0]);
      // A count is the sum of its shards (one per PostgreSQL session that wrote it).
      const kept = await h.db
        .selectFrom('list_counts')
        .select((eb) => [eb.fn.sum<number>('total').as('total'), eb.fn.sum<number>('active').as('active')])
        .where('account_id', '=', account)
        .where('resource', '=', 'clients')
        .executeTakeFirstOrThrow();
      const real = await h.db
        .selectFrom('clients')
        .select((eb) => [
          eb.fn.countAll().as('total'),
          eb.fn.count('id').filterWhere('archived_at', 'is', null).as('active'),
        ])
        .where('account_id', '=', account)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        { total: Number(kept.total), active: Number(kept.active) },
        { total: Number(real.total), active: Number(real.active) },
      );
      assert.ok(Number(real.total) >= 72);
    } finally {
      await h.destroy();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  });
});
