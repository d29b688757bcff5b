import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { groupCommitOf } from '../src/db/group-commit.js';
import { createDb, type DbHandle } from '../src/db/index.js';
import { transact } from '../src/db/transact.js';
import { type Api, describeEachDb, expectProblem } from './helpers.js';
import { seedWork } from './work.fixtures.js';

/**
 * SQLite group commit (src/db/group-commit.ts): writes that arrive together share one
 * transaction and one commit, each in a savepoint of its own.
 */
describe('SQLite group commit', () => {
  let dir: string;
  let handle: DbHandle;
  /** A second connection: sees only what has been committed. */
  let reader: SQLite.Database;
  const db = () => handle.db;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'group-commit-'));
    const file = join(dir, 'gc.sqlite');
    handle = createDb({ kind: 'sqlite', file });
    await sql`create table t (id integer primary key, v text not null unique)`.execute(db());
    await sql`create table parent (id integer primary key)`.execute(db());
    await sql`create table child (id integer primary key,
      parent_id integer not null references parent(id) deferrable initially deferred)`.execute(db());
    reader = new SQLite(file, { readonly: true });
    // A loaded machine must not end a batch early: these tests count batches.
    groupCommitOf(db())!.limits.maxMs = 60_000;
  });
  after(async () => {
    reader.close();
    await handle.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  const insert = (trx: Parameters<Parameters<typeof transact>[1]>[0], v: string) =>
    sql`insert into t (v) values (${v})`.execute(trx);
  const committed = (v: string) =>
    reader.prepare('select count(*) n from t where v = ?').get(v) as { n: number };
  const values = async () =>
    (await sql<{ v: string }>`select v from t order by v`.execute(db())).rows.map((r) => r.v);

  it('writes arriving together share one commit; each is answered only once it is committed', async () => {
    const group = groupCommitOf(db())!;
    const batches = group.batches;
    const seenAtAnswer: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        transact(db(), async (trx) => {
          await insert(trx, `a${i}`);
          // An await that is not the database: the next write still waits for this one.
          await new Promise((r) => setImmediate(r));
          await insert(trx, `a${i}-second`);
          return i;
        }).then((i) => {
          seenAtAnswer.push(committed(`a${i}`).n + committed(`a${i}-second`).n);
        }),
      ),
    );
    assert.equal(group.batches - batches, 1, 'one transaction for all twenty');
    assert.deepEqual(seenAtAnswer, Array(20).fill(2), 'committed, both rows, when answered');
  });

  it('a write that fails after partial work is undone alone; the others of its batch commit', async () => {
    await sql`delete from t`.execute(db());
    const group = groupCommitOf(db())!;
    const batches = group.batches;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        transact(db(), async (trx) => {
          await insert(trx, `b${i}`);
          if (i === 3) throw new Error('fails after its first insert');
          // A constraint error in the middle of the batch.
          if (i === 6) await insert(trx, 'b0');
          if (i === 9) {
            // A nested transaction that fails and is caught: only its own part is undone.
            await transact(trx, async (inner) => {
              await insert(inner, 'b9-nested');
              throw new Error('nested');
            }).catch(() => {});
            await insert(trx, 'b9-after');
          }
          return i;
        }),
      ),
    );
    assert.equal(group.batches - batches, 1);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      outcomes.map((_, i) => (i === 3 || i === 6 ? 'rejected' : 'fulfilled')),
    );
    assert.match(String((outcomes[6] as PromiseRejectedResult).reason), /UNIQUE/);
    const expected = [...Array.from({ length: 12 }, (_, i) => `b${i}`), 'b9-after']
      .filter((v) => v !== 'b3' && v !== 'b6')
      .sort();
    assert.deepEqual(await values(), expected);
  });

  it('a COMMIT that fails fails every write of its batch, and keeps none; the next batch goes on', async () => {
    await sql`delete from t`.execute(db());
    const outcomes = await Promise.allSettled([
      ...Array.from({ length: 5 }, (_, i) => transact(db(), (trx) => insert(trx, `c${i}`))),
      // Checked only at COMMIT: a deferred foreign key to a parent that does not exist.
      transact(db(), (trx) => sql`insert into child (parent_id) values (999)`.execute(trx)),
    ]);
    for (const o of outcomes) {
      assert.equal(o.status, 'rejected');
      assert.match(String((o as PromiseRejectedResult).reason), /FOREIGN KEY/);
    }
    assert.deepEqual(await values(), []);
    assert.equal((reader.prepare('select count(*) n from child').get() as { n: number }).n, 0);
    await transact(db(), (trx) => insert(trx, 'c-after'));
    assert.equal(committed('c-after').n, 1);
  });

  it('a full disk in the middle of a batch: every answered write is kept, every failed one is not', async () => {
    await sql`delete from t`.execute(db());
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(db());
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count + 3}`).execute(db());
    try {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) =>
          transact(db(), (trx) => insert(trx, `d${i}-${'x'.repeat(900)}`)),
        ),
      );
      const failed = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
      assert.ok(failed.length > 0, 'the disk filled up');
      for (const f of failed) assert.equal((f.reason as { code?: string }).code, 'SQLITE_FULL');
      const kept = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [`d${i}-${'x'.repeat(900)}`] : []));
      assert.deepEqual(await values(), kept.sort());
    } finally {
      await sql`pragma max_page_count = 1073741823`.execute(db());
    }
    await transact(db(), (trx) => insert(trx, 'd-after'));
    assert.equal(committed('d-after').n, 1);
  });
});

/**
 * Over HTTP: a task whose outbox event cannot be written fails after its task row was inserted;
 * the tasks created beside it, in the same batch on SQLite, are answered 201 with their events.
 */
describeEachDb('group commit over HTTP', (ctx) => {
  let api: Api;
  let projectId: number;

  before(async () => {
    api = await ctx.as('task-management:write task-management:read');
    projectId = (await seedWork(ctx)).projects.web;
    if (ctx.kind === 'sqlite') {
      await sql`create trigger gc_fail before insert on events when new.payload like '%boom%'
        begin select raise(abort, 'outbox refused'); end`.execute(ctx.db);
    } else {
      await sql`create function gc_fail() returns trigger language plpgsql as $$
        begin if new.payload like '%boom%' then raise exception 'outbox refused'; end if; return new; end $$`.execute(
        ctx.db,
      );
      await sql`create trigger gc_fail before insert on events for each row execute function gc_fail()`.execute(
        ctx.db,
      );
    }
  });

  it('a request that fails after a partial write rolls back alone; the others are answered 201', async () => {
    const group = groupCommitOf(ctx.db);
    const batches = group?.batches ?? 0;
    const names = Array.from({ length: 10 }, (_, i) => `gc task ${i}`);
    names.splice(4, 0, 'gc task boom');
    const answers = await Promise.all(
      names.map((name) => api.post('/tasks', { project_id: projectId, name })),
    );
    for (const [i, res] of answers.entries()) {
      if (names[i] === 'gc task boom') expectProblem(res, 500);
      else assert.equal(res.status, 201, res.text);
    }
    if (group) assert.ok(group.batches - batches < names.length, 'the requests shared commits');
    const tasks = await ctx.db
      .selectFrom('tasks')
      .select(['id', 'name'])
      .where('name', 'like', 'gc task %')
      .orderBy('name')
      .execute();
    assert.deepEqual(
      tasks.map((t) => t.name),
      names.filter((n) => n !== 'gc task boom').sort(),
    );
    const events = await ctx.db
      .selectFrom('events')
      .select('resource_id')
      .where('kind', '=', 'task:created')
      .where(
        'resource_id',
        'in',
        tasks.map((t) => t.id),
      )
      .execute();
    assert.equal(events.length, tasks.length, 'every committed task has its outbox event');
  });
});
