import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../src/db/index.js';
import { batchStats, batchTiming } from '../src/db/insert-batch.js';
import { importData } from '../src/import/index.js';
import { CREATE_COLUMN_TYPES } from '../src/modules/outgoing-invoices/invoices.repository.js';
import { insertTasksAsOne } from '../src/modules/tasks/tasks.repository.js';
import { insertOne } from '../src/shared/owned.js';
import { countRows, createAccount, describeEachDb, expectProblem } from './helpers.js';
import { seedWork, type WorkFixture } from './work.fixtures.js';

/** Runs `fn` while a PostgreSQL trigger refuses (P0001) rows of `table` whose `column` is `value`. */
async function refusing(db: Db, table: string, column: string, value: string, fn: () => Promise<void>) {
  await sql
    .raw(`create function ib_refuse() returns trigger language plpgsql as $$
      begin if new.${column} = '${value}' then raise exception 'refused by trigger'; end if; return new; end $$`)
    .execute(db);
  await sql
    .raw(`create trigger ib_refuse before insert on ${table} for each row execute function ib_refuse()`)
    .execute(db);
  try {
    await fn();
  } finally {
    await sql.raw(`drop trigger ib_refuse on ${table}`).execute(db);
    await sql`drop function ib_refuse()`.execute(db);
  }
}

/** PostgreSQL: the text of each statement `run` sends to the server. */
const spied = async <T>(run: () => Promise<T>): Promise<{ result: T; sent: string[] }> => {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, q: unknown, ...rest: unknown[]) {
    sent.push(typeof q === 'string' ? q : String((q as { text: string }).text));
    return (query as (...a: unknown[]) => unknown).call(this, q, ...rest);
  } as typeof query;
  try {
    return { result: await run(), sent };
  } finally {
    pg.Client.prototype.query = query;
  }
};

/**
 * `insertOne` (src/db/insert-batch.ts): on PostgreSQL outside a transaction, inserts into one
 * table that arrive together share one multi-row INSERT; every caller still gets its own row,
 * or its own error. POST /clients without a shortcode or external id goes through it.
 */
describeEachDb('batched one-row inserts', (t) => {
  const names = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i}`);

  it('30 concurrent POST /clients: each answered with its own row, all stored, fed and counted', async () => {
    const api = await t.as('client:write client:read');
    const total = (await api.get('/clients')).body.meta.total as number;
    const feed = await countRows(t.db, 'change_log');
    const before = { ...batchStats };
    const sent = names(30, 'Concurrent');
    const res = await Promise.all(
      sent.map((name, i) => api.post('/clients', { name, email: `c${i}@example.com` })),
    );
    for (const [i, r] of res.entries()) {
      assert.equal(r.status, 201);
      assert.equal(r.body.data.name, sent[i]);
      assert.equal(r.body.data.email, `c${i}@example.com`);
    }
    assert.equal(new Set(res.map((r) => r.body.data.id)).size, 30);
    for (const r of res) {
      const read = await api.get(`/clients/${r.body.data.id}`);
      assert.deepEqual(read.body.data, r.body.data);
    }
    assert.equal((await api.get('/clients')).body.meta.total, total + 30);
    assert.equal(await countRows(t.db, 'change_log'), feed + 30);
    if (t.kind === 'postgres') {
      // Shared statements, not 30 of them.
      assert.ok(batchStats.batches > before.batches, 'no multi-row statement was sent');
      assert.ok(batchStats.items - before.items >= 2);
    }
  });

  it('a row that breaks a constraint fails alone with its own error; the rows sent with it are written', async () => {
    const rows = await countRows(t.db, 'clients');
    const before = { ...batchStats };
    const results = await Promise.allSettled([
      ...names(5, 'Good').map((name) =>
        insertOne(t.db, 'clients', { account_id: t.account.accountId, name }),
      ),
      insertOne(t.db, 'clients', { account_id: 2_000_000_000, name: 'No such account' }),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected'],
    );
    const err = (results[5] as PromiseRejectedResult).reason;
    assert.match(String(err.code), /^(23503|SQLITE_CONSTRAINT_FOREIGNKEY)$/);
    assert.deepEqual(
      results.slice(0, 5).map((r) => (r as PromiseFulfilledResult<{ name: string }>).value.name),
      names(5, 'Good'),
    );
    assert.equal(await countRows(t.db, 'clients'), rows + 5);
    if (t.kind === 'postgres') assert.equal(batchStats.batches, before.batches + 1);
  });

  // SQLite inserts each row at once: there is no batch to fail.
  if (t.kind === 'postgres') {
    /** Runs `fn` while inserting a client named `Slow` sleeps `seconds` in a trigger. */
    const slowing = async (seconds: number, fn: () => Promise<void>) => {
      await sql
        .raw(`create function ib_slow() returns trigger language plpgsql as $$
          begin if new.name = 'Slow' then perform pg_sleep(${seconds}); end if; return new; end $$`)
        .execute(t.db);
      await sql
        .raw('create trigger ib_slow before insert on clients for each row execute function ib_slow()')
        .execute(t.db);
      try {
        await fn();
      } finally {
        await sql.raw('drop trigger ib_slow on clients').execute(t.db);
        await sql`drop function ib_slow()`.execute(t.db);
      }
    };
    /** Inserts `Slow`, then — once its statement is out — five more; the order they end in. */
    const slowThenFive = async () => {
      const ended: string[] = [];
      const insert = (name: string) =>
        insertOne(t.db, 'clients', { account_id: t.account.accountId, name }).then(() => {
          ended.push(name);
        });
      const before = { ...batchStats };
      const slow = insert('Slow');
      await new Promise((r) => setTimeout(r, 50));
      await Promise.all([slow, ...names(5, 'After').map(insert)]);
      return { ended, batches: batchStats.batches - before.batches, items: batchStats.items - before.items };
    };

    it('creates that arrive while one of their statements runs wait for it, then go as one statement', async () => {
      const stallMs = batchTiming.stallMs;
      batchTiming.stallMs = 5_000;
      try {
        await slowing(0.3, async () => {
          const { ended, batches, items } = await slowThenFive();
          assert.equal(ended[0], 'Slow', `ended in the order ${ended.join(', ')}`);
          assert.deepEqual([batches, items], [1, 5]);
        });
      } finally {
        batchTiming.stallMs = stallMs;
      }
    });

    it('when a statement ends, the creates that waited for it are sent before its own callers are answered', async () => {
      const stallMs = batchTiming.stallMs;
      batchTiming.stallMs = 5_000;
      const order: string[] = [];
      const insert = (name: string) =>
        insertOne(t.db, 'clients', { account_id: t.account.accountId, name }).then(() => {
          order.push(`answered ${name}`);
        });
      try {
        await slowing(0.2, async () => {
          const { sent } = await spied(async () => {
            const first = [insert('Slow'), insert('Slow')];
            await new Promise((r) => setTimeout(r, 50));
            const query = pg.Client.prototype.query;
            // From now on: when the statement of the three that wait goes out.
            pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
              order.push('sent');
              return (query as (...a: unknown[]) => unknown).apply(this, args);
            } as typeof query;
            try {
              await Promise.all([...first, ...names(3, 'After').map(insert)]);
            } finally {
              pg.Client.prototype.query = query;
            }
          });
          assert.equal(sent.filter((q) => q.includes('insert into')).length, 2, sent.join('\n'));
        });
      } finally {
        batchTiming.stallMs = stallMs;
      }
      assert.deepEqual(order.slice(0, 3), ['sent', 'answered Slow', 'answered Slow'], order.join(', '));
    });

    it('a statement held up past batchTiming.stallMs does not hold up the creates that arrive after it', async () => {
      await slowing(1, async () => {
        const started = Date.now();
        const { ended, batches, items } = await slowThenFive();
        // The five went alongside the slow one, together, and ended long before it.
        assert.equal(ended.at(-1), 'Slow', `ended in the order ${ended.join(', ')}`);
        assert.deepEqual([batches, items], [1, 5]);
        assert.ok(Date.now() - started >= 1_000);
      });
    });

    it('a row a trigger refuses fails alone, with its own error', async () => {
      await refusing(t.db, 'clients', 'name', 'Refused', async () => {
        const rows = await countRows(t.db, 'clients');
        const results = await Promise.allSettled(
          ['A', 'Refused', 'B'].map((name) =>
            insertOne(t.db, 'clients', { account_id: t.account.accountId, name }),
          ),
        );
        assert.deepEqual(
          results.map((r) => r.status),
          ['fulfilled', 'rejected', 'fulfilled'],
        );
        assert.equal((results[1] as PromiseRejectedResult).reason.code, 'P0001');
        assert.equal(await countRows(t.db, 'clients'), rows + 2);
      });
    });

    it('a batch refused for want of resources (SQLSTATE 53…) fails every write of it, none is tried again, nothing is written', async () => {
      await sql`create function ib_full() returns trigger language plpgsql as $$
        begin if new.name = 'Full' then raise exception 'disk full' using errcode = '53100'; end if; return new; end $$`.execute(
        t.db,
      );
      await sql`create trigger ib_full before insert on clients for each row execute function ib_full()`.execute(
        t.db,
      );
      try {
        const rows = await countRows(t.db, 'clients');
        const before = { ...batchStats };
        const results = await Promise.allSettled(
          ['A', 'Full', 'B'].map((name) =>
            insertOne(t.db, 'clients', { account_id: t.account.accountId, name }),
          ),
        );
        assert.deepEqual(
          results.map((r) => r.status),
          ['rejected', 'rejected', 'rejected'],
        );
        for (const r of results) assert.equal((r as PromiseRejectedResult).reason.code, '53100');
        assert.equal(batchStats.batches, before.batches + 1);
        assert.equal(await countRows(t.db, 'clients'), rows);
      } finally {
        await sql`drop trigger ib_full on clients`.execute(t.db);
        await sql`drop function ib_full()`.execute(t.db);
      }
    });
  }

  it('inside a transaction the row is inserted at once and rolled back with it', async () => {
    const rows = await countRows(t.db, 'clients');
    const before = { ...batchStats };
    await assert.rejects(
      t.db.transaction().execute(async (trx) => {
        const row = await insertOne(trx, 'clients', { account_id: t.account.accountId, name: 'Undone' });
        assert.equal(row.name, 'Undone');
        assert.equal(await countRows(trx, 'clients'), rows + 1);
        throw new Error('undo');
      }),
      /undo/,
    );
    assert.equal(await countRows(t.db, 'clients'), rows);
    assert.deepEqual(batchStats, before);
  });
});

describeEachDb('batched invoice creates', (t) => {
  it('20 concurrent POST /outgoing-invoices with 0–4 lines each: each answered with its own lines and totals, as read back; a bad reference among them fails alone', async () => {
    const api = await t.as('outgoing-invoice:write outgoing-invoice:read client:write');
    const client = (
      await api.post('/clients', { name: 'Batch client', currency: 'CHF', payment_term_days: 7 })
    ).body.data.id as number;
    const before = { ...batchStats };
    const bodies = Array.from({ length: 20 }, (_, i) => ({
      client_id: client,
      title: `Batch ${i}`,
      line_items: Array.from({ length: i % 5 }, (_, j) => ({
        title: `Invoice ${i} line ${j + 1}`,
        quantity: j + 1,
        unit_price: 10 + i,
        tax_rate: j % 2 ? 7 : 19,
      })),
    }));
    const res = await Promise.all([
      ...bodies.map((b) => api.post('/outgoing-invoices', b)),
      api.post('/outgoing-invoices', { client_id: 2_000_000_000, title: 'No such client' }),
    ]);
    assert.equal(res[20]!.status, 422);
    for (const [i, r] of res.slice(0, 20).entries()) {
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const inv = r.body.data;
      assert.equal(inv.title, `Batch ${i}`);
      assert.equal(inv.currency, 'CHF');
      assert.equal(inv.payment_term_days, 7);
      assert.deepEqual(
        inv.line_items.map((l: { title: string; position: number }) => [l.position, l.title]),
        bodies[i]!.line_items.map((l, j) => [j + 1, l.title]),
      );
      const net = bodies[i]!.line_items.reduce((s, l) => s + l.quantity * l.unit_price, 0);
      assert.equal(Number(inv.net_total), net);
      assert.deepEqual((await api.get(`/outgoing-invoices/${inv.id}`)).body.data, inv);
    }
    assert.equal(new Set(res.slice(0, 20).map((r) => r.body.data.id)).size, 20);
    if (t.kind === 'postgres') assert.ok(batchStats.batches > before.batches, 'no batch was run');
  });

  it('concurrent creates take their currency and payment term from their own client, else the account; a client of another account fails alone with `client_id: no such client`', async () => {
    const api = await t.as('outgoing-invoice:write outgoing-invoice:read client:write');
    const { currency: accountCurrency } = await t.db
      .selectFrom('accounts')
      .select('currency')
      .where('id', '=', t.account.accountId)
      .executeTakeFirstOrThrow();
    const mk = async (body: object) => (await api.post('/clients', body)).body.data.id as number;
    const termed = await mk({ name: 'Termed', currency: 'CHF', payment_term_days: 7 });
    const plain = await mk({ name: 'Plain' });
    const otherApi = await t.as('client:write', { accountId: t.other.accountId });
    const foreign = (await otherApi.post('/clients', { name: 'Foreign', currency: 'JPY' })).body.data
      .id as number;
    const line = [{ title: 'Work', quantity: 2, unit_price: 50, tax_rate: 19 }];
    const cases: [body: object, currency: string, term: number | null][] = [
      [{ client_id: termed }, 'CHF', 7],
      [{ client_id: termed, payment_term_days: null }, 'CHF', null],
      [{ client_id: termed, payment_term_days: 30, currency: 'USD' }, 'USD', 30],
      [{ client_id: plain }, accountCurrency, null],
      [{ client_id: plain, payment_term_days: 0 }, accountCurrency, 0],
      [{}, accountCurrency, null],
      [{ currency: 'SEK' }, 'SEK', null],
      // Every header field given: the answer takes what was sent, the database the rest.
      [
        {
          client_id: termed,
          date: '2028-02-29',
          due_date: '2028-03-30',
          service_period_start: '2028-02-01',
          service_period_end: '2028-02-29',
          intro_text: 'Grüße, "quoted" \\ back\nslash',
          closing_text: '😀',
          buyer_reference: 'BR-1',
          tax_exemption_category: 'E',
          tax_exemption_reason: 'Exempt',
          tax_exemption_reason_code: 'VATEX-EU-132',
          status: 'bookable',
        },
        'CHF',
        7,
      ],
    ];
    const invoices = await countRows(t.db, 'outgoing_invoices');
    const res = await Promise.all([
      ...cases.map(([b], i) =>
        api.post('/outgoing-invoices', { ...b, title: `Defaults ${i}`, line_items: line }),
      ),
      api.post('/outgoing-invoices', { client_id: foreign, title: 'Foreign client', line_items: line }),
    ]);
    for (const [i, [, currency, term]] of cases.entries()) {
      const r = res[i]!;
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.deepEqual([r.body.data.currency, r.body.data.payment_term_days], [currency, term], `case ${i}`);
      assert.deepEqual((await api.get(`/outgoing-invoices/${r.body.data.id}`)).body.data, r.body.data);
    }
    const refused = expectProblem(res[cases.length]!, 422, 'invalid_reference');
    assert.deepEqual(refused.errors, [{ field: 'client_id', message: 'no such client' }]);
    assert.equal(await countRows(t.db, 'outgoing_invoices'), invoices + cases.length);
  });

  // On PostgreSQL invoices that set the same columns go as one statement (insertManyAsOne).
  if (t.kind === 'postgres') {
    const invoice = (client: number, i: number, title = `Line of ${i}`) => ({
      client_id: client,
      title: `One statement ${i}`,
      line_items: [{ title, quantity: 1, unit_price: 100 + i, tax_rate: 19 }],
    });

    it("the one-statement create casts each column's array to the column's own type", async () => {
      for (const [table, types] of Object.entries(CREATE_COLUMN_TYPES)) {
        const { rows } = await sql<{ name: string; type: string }>`
          select attname as name, format_type(atttypid, null) as type from pg_attribute
          where attrelid = ${table}::regclass and attnum > 0 and not attisdropped`.execute(t.db);
        const catalog = Object.fromEntries(rows.map((r) => [r.name, r.type]));
        for (const [column, type] of Object.entries(types))
          assert.equal(type, catalog[column], `${table}.${column}`);
      }
    });

    it('invoices that set the same columns are written by one statement, without BEGIN and COMMIT', async () => {
      const api = await t.as('outgoing-invoice:write outgoing-invoice:read client:write');
      const client = (await api.post('/clients', { name: 'One statement client' })).body.data.id as number;
      const { result, sent } = await spied(() =>
        Promise.all(Array.from({ length: 10 }, (_, i) => api.post('/outgoing-invoices', invoice(client, i)))),
      );
      for (const [i, r] of result.entries()) {
        assert.equal(r.status, 201, JSON.stringify(r.body));
        assert.equal(r.body.data.line_items[0].title, `Line of ${i}`);
        assert.deepEqual((await api.get(`/outgoing-invoices/${r.body.data.id}`)).body.data, r.body.data);
      }
      assert.ok(
        sent.some((q) => /^\s*with inv as/.test(q)),
        'no single statement was sent',
      );
      assert.deepEqual(
        sent.filter((q) => /^(begin|commit)/i.test(q)),
        [],
      );
      // Nor a read of the client first: the statement takes its defaults (migration 2026_11_29_200).
      assert.deepEqual(
        sent.filter((q) => /"?clients"?/.test(q) && !/^\s*with inv as/.test(q)),
        [],
      );
    });

    it('text that an array literal must escape (quotes, backslashes, braces, commas, NULL, blanks, emoji) is stored as sent by the one statement', async () => {
      const api = await t.as('outgoing-invoice:write outgoing-invoice:read client:write');
      const client = (await api.post('/clients', { name: 'Literal client' })).body.data.id as number;
      const awkward = ['say "hi"', 'C:\\dir\\', '\\"', '{a,b}', 'NULL', ' padded ', 'Müller € 🧾', 'a\nb'];
      const { result, sent } = await spied(() =>
        Promise.all(
          awkward.map((text, i) =>
            api.post('/outgoing-invoices', {
              client_id: client,
              title: text,
              intro_text: `${text}!`,
              line_items: [{ title: text, unit: text, quantity: 1, unit_price: 10 + i, tax_rate: 19 }],
            }),
          ),
        ),
      );
      assert.ok(
        sent.some((q) => /^\s*with inv as/.test(q)),
        'no single statement was sent',
      );
      for (const [i, r] of result.entries()) {
        assert.equal(r.status, 201, JSON.stringify(r.body));
        const stored = (await api.get(`/outgoing-invoices/${r.body.data.id}`)).body.data;
        assert.equal(stored.title, awkward[i]);
        assert.equal(stored.intro_text, `${awkward[i]}!`);
        assert.equal(stored.line_items[0].title, awkward[i]);
        assert.equal(stored.line_items[0].unit, awkward[i]);
        assert.deepEqual(stored, r.body.data);
      }
    });

    it('a line a trigger refuses fails its invoice alone; nothing of it is written, the others are', async () => {
      const api = await t.as('outgoing-invoice:write outgoing-invoice:read client:write');
      const client = (await api.post('/clients', { name: 'Refusing client' })).body.data.id as number;
      await refusing(t.db, 'outgoing_invoice_items', 'title', 'Refused line', async () => {
        const invoices = await countRows(t.db, 'outgoing_invoices');
        const items = await countRows(t.db, 'outgoing_invoice_items');
        const res = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            api.post('/outgoing-invoices', invoice(client, i, i === 3 ? 'Refused line' : undefined)),
          ),
        );
        assert.deepEqual(
          res.map((r) => r.status === 201),
          [true, true, true, false, true, true],
        );
        assert.equal(await countRows(t.db, 'outgoing_invoices'), invoices + 5);
        assert.equal(await countRows(t.db, 'outgoing_invoice_items'), items + 5);
      });
    });
  }

  /** PostgreSQL: a row of `table` is refused by its composite key (23503) in `refused`'s account and written in `accepted`'s. */
  const tiedToAccount = async (
    table: 'outgoing_invoices' | 'outgoing_invoice_items',
    values: Record<string, unknown>,
    refused: number,
    accepted: number,
  ) => {
    const insert = (accountId: number) =>
      t.db
        .insertInto(table)
        .values({ ...values, account_id: accountId } as never)
        .execute();
    await assert.rejects(insert(refused), (err: { code?: string }) => err.code === '23503');
    await insert(accepted);
  };

  if (t.kind === 'postgres')
    it("PostgreSQL: an invoice cannot name another account's client", async () => {
      const otherApi = await t.as('client:write', { accountId: t.other.accountId });
      const foreign = (await otherApi.post('/clients', { name: 'Not yours' })).body.data.id as number;
      const row = { type: 'invoice', status: 'open', currency: 'EUR', client_id: foreign };
      await tiedToAccount('outgoing_invoices', row, t.account.accountId, t.other.accountId);
    });

  // PostgreSQL checks an invoice line's invoice and account with one composite key
  // (migration 2026_11_29_100); SQLite keeps its two plain keys, which do not tie the two.
  if (t.kind === 'postgres')
    it('PostgreSQL: a line cannot name an invoice of another account, and goes with its invoice', async () => {
      const api = await t.as('outgoing-invoice:write outgoing-invoice:read');
      const created = await api.post('/outgoing-invoices', {
        title: 'Keyed',
        line_items: [{ title: 'Line', quantity: 1, unit_price: 10, tax_rate: 19 }],
      });
      assert.equal(created.status, 201);
      const invoice = created.body.data.id as number;
      const line = {
        invoice_id: invoice,
        position: 2,
        title: 'Foreign line',
        quantity: '1',
        unit_price: 100,
        tax_rate: '19',
        net_total: 100,
      };
      await tiedToAccount('outgoing_invoice_items', line, t.other.accountId, t.account.accountId);
      await t.db.deleteFrom('outgoing_invoices').where('id', '=', invoice).execute();
      assert.equal(
        (
          await t.db
            .selectFrom('outgoing_invoice_items')
            .select('id')
            .where('invoice_id', '=', invoice)
            .execute()
        ).length,
        0,
      );
    });
});

describeEachDb('batched task creates', (t) => {
  let w: WorkFixture;
  before(async () => {
    w = await seedWork(t);
  });

  it('20 concurrent POST /tasks: each answered with its own task, as read back, each with its own task:created event; a bad project among them fails alone', async () => {
    const api = await t.as('task-management:write task-management:read');
    const project = w.projects.web;
    const hook = await (await t.as('integration')).post('/webhooks', {
      url: 'https://hooks.example.com/batched',
      scopes: ['task:create'],
    });
    assert.equal(hook.status, 201);
    const before = { ...batchStats };
    const res = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) =>
        api.post('/tasks', {
          project_id: project,
          name: `Task ${i}`,
          priority: i % 2 ? 'high' : 'low',
          // Every kind of column the event payload is built from before the INSERT (PostgreSQL).
          ...(i % 3 === 0 ? { status: 'done', start_date: '2026-03-01', due_date: '2026-03-31' } : {}),
          ...(i % 4 === 0 ? { description: 'Ünïcode "quoted" \\ text', estimate_minutes: 90 } : {}),
        }),
      ),
      api.post('/tasks', { project_id: 2_000_000_000, name: 'No such project' }),
    ]);
    assert.equal(res[20]!.status, 422);
    const tasks = res.slice(0, 20).map((r) => r.body.data);
    for (const [i, r] of res.slice(0, 20).entries()) {
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal(r.body.data.name, `Task ${i}`);
      assert.equal(r.body.data.priority, i % 2 ? 'high' : 'low');
      assert.deepEqual((await api.get(`/tasks/${r.body.data.id}`)).body.data, r.body.data);
    }
    const events = await t.db
      .selectFrom('events')
      .select(['id', 'resource_id', 'payload'])
      .where('kind', '=', 'task:created')
      .where(
        'resource_id',
        'in',
        tasks.map((x) => x.id),
      )
      .execute();
    assert.equal(events.length, 20);
    // Each payload is the task exactly as answered (on PostgreSQL built before the INSERT).
    for (const e of events)
      assert.deepEqual(
        JSON.parse(e.payload),
        tasks.find((x) => x.id === e.resource_id),
      );
    // …and each event is queued for the subscribed webhook, once.
    const deliveries = await t.db
      .selectFrom('webhook_deliveries')
      .select('event_id')
      .where('webhook_id', '=', hook.body.data.id)
      .execute();
    assert.deepEqual(
      deliveries.map((d) => d.event_id).sort((a, b) => a - b),
      events.map((e) => e.id).sort((a, b) => a - b),
    );
    if (t.kind === 'postgres') assert.ok(batchStats.batches > before.batches, 'no batch was run');
  });

  it('concurrent creates naming only their project: a project of another account, an archived one, none, and a required custom field left out each fail alone with the field named; nothing of them is written', async () => {
    const api = await t.as('task-management:write task-management:read');
    // A second account that requires a custom field of its tasks, creating in the same batches.
    const strict = await createAccount(t.db);
    await importData(
      t.db,
      {
        custom_fields: [
          { entity: 'task', key: 'budget_code', label: 'Budget code', type: 'text', required: true },
        ],
        clients: [{ key: 'c', name: 'C' }],
        projects: [{ key: 'p', client: 'c', name: 'P' }],
      },
      { accountId: strict.accountId },
    );
    const { id: strictProject } = await t.db
      .selectFrom('projects')
      .select('id')
      .where('account_id', '=', strict.accountId)
      .executeTakeFirstOrThrow();
    const strictApi = await t.as('task-management:write task-management:read', {
      userId: strict.users.admin,
    });
    const tasks = await countRows(t.db, 'tasks');
    const events = await countRows(t.db, 'events');
    const res = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) =>
        api.post('/tasks', { project_id: w.projects.web, name: `Mine ${i}` }),
      ),
      api.post('/tasks', { project_id: strictProject, name: 'Foreign project' }),
      api.post('/tasks', { project_id: w.projects.legacy, name: 'Archived project' }),
      api.post('/tasks', { project_id: 2_000_000_000, name: 'No project' }),
      strictApi.post('/tasks', { project_id: strictProject, name: 'Required left out' }),
      strictApi.post('/tasks', {
        project_id: strictProject,
        name: 'Required given',
        custom_fields: { budget_code: 'B1' },
      }),
    ]);
    const refused = (i: number) => expectProblem(res[i]!, 422).errors;
    assert.deepEqual(refused(6), [{ field: 'project_id', message: 'no such project' }]);
    assert.deepEqual(refused(7), [{ field: 'project_id', message: 'project is archived' }]);
    assert.deepEqual(refused(8), [{ field: 'project_id', message: 'no such project' }]);
    assert.deepEqual(refused(9), [{ field: 'custom_fields.budget_code', message: 'is required' }]);
    const created = [...res.slice(0, 6), res[10]!];
    for (const r of created) {
      assert.equal(r.status, 201, r.text);
      const reader = r === res[10] ? strictApi : api;
      assert.deepEqual((await reader.get(`/tasks/${r.body.data.id}`)).body.data, r.body.data);
    }
    assert.deepEqual(res[10]!.body.data.custom_fields, { budget_code: 'B1' });
    assert.equal(await countRows(t.db, 'tasks'), tasks + created.length);
    assert.equal(await countRows(t.db, 'events'), events + created.length);
  });

  if (t.kind === 'postgres')
    it('PostgreSQL: the task statement refuses a batch with a row whose project is archived or of another account (23502), writing nothing of it', async () => {
      const row = (project: number, name: string) => ({
        account_id: t.account.accountId,
        project_id: project,
        phase_id: null,
        milestone_id: null,
        epic_id: null,
        name,
        description: null,
        status: 'open',
        priority: 'normal',
        assignee_id: null,
        start_date: null,
        due_date: null,
        estimate_minutes: null,
        external_id: null,
        custom_fields: '{}',
        created_by_id: null,
        completed_at: null,
        created_at: '2026-11-29T10:00:00.000Z',
        updated_at: '2026-11-29T10:00:00.000Z',
      });
      const event = (name: string) => ({
        accountId: t.account.accountId,
        kind: 'task:created' as const,
        resourceType: 'task',
        resourceId: 0,
        data: { id: 0, name },
      });
      await importData(
        t.db,
        {
          clients: [{ key: 'o', name: 'Other client' }],
          projects: [{ key: 'o', client: 'o', name: 'Other project' }],
        },
        { accountId: t.other.accountId },
      );
      const { id: foreign } = await t.db
        .selectFrom('projects')
        .select('id')
        .where('account_id', '=', t.other.accountId)
        .executeTakeFirstOrThrow();
      const tasks = await countRows(t.db, 'tasks');
      const events = await countRows(t.db, 'events');
      for (const bad of [w.projects.legacy, foreign]) {
        const err = await insertTasksAsOne(
          t.db,
          [row(w.projects.web, 'Fine'), row(bad, 'Refused')],
          [event('Fine'), event('Refused')],
        ).then(
          () => undefined,
          (e: { code?: string; column?: string }) => e,
        );
        assert.equal(err?.code, '23502');
        assert.equal(err?.column, 'project_id');
      }
      assert.equal(await countRows(t.db, 'tasks'), tasks);
      assert.equal(await countRows(t.db, 'events'), events);
      const ids = await insertTasksAsOne(t.db, [row(w.projects.web, 'Fine')], [event('Fine')]);
      assert.equal(ids?.length, 1);
      assert.equal(await countRows(t.db, 'tasks'), tasks + 1);
    });

  if (t.kind === 'postgres')
    it('PostgreSQL: a create naming only its project reads nothing before its statement, which writes task and event without BEGIN and COMMIT', async () => {
      const api = await t.as('task-management:write task-management:read');
      const { result, sent } = await spied(() =>
        Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            api.post('/tasks', { project_id: w.projects.web, name: `Unread ${i}`, due_date: '2027-01-31' }),
          ),
        ),
      );
      for (const r of result) assert.equal(r.status, 201, r.text);
      const statement = (q: string) => /^\s*with ins as/.test(q);
      assert.ok(sent.some(statement), 'no single statement was sent');
      assert.deepEqual(
        sent.filter((q) => !statement(q) && /projects|custom_field_definitions|^(begin|commit)/i.test(q)),
        [],
      );
    });
});
