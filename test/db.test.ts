import assert from 'node:assert/strict';
import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { type KyselyPlugin, type RootOperationNode, sql } from 'kysely';
import { parseDatabaseUrl } from '../src/config.js';
import { createDb, openSqlite } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';

it('SQLite files run in WAL mode with synchronous=FULL and foreign keys on', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'db-test-'));
  try {
    const db = openSqlite(join(dir, 'x.sqlite'));
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(db.pragma('synchronous', { simple: true }), 2); // FULL
    assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
    db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** The temporary files SQLite holds open (it unlinks them at once; /proc still names them). */
async function sqliteTempFiles(): Promise<string[]> {
  const links = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return links.filter((l) => /etilqs_/.test(l));
}

it('savepoints keep their sub-journal in memory: a batch of writes opens no temporary file', async () => {
  // With temp_store=FILE a savepoint's sub-journal (the pages it changed, kept to undo it) spills
  // into a temporary file past 64 KiB, and every changed page is then written there until COMMIT
  // (issue 15: an invoice INSERT in the group commit 170 → 31 µs). Here each savepoint changes
  // ~34 pages (~140 KiB).
  const dir = await mkdtemp(join(tmpdir(), 'db-test-'));
  try {
    const db = openSqlite(join(dir, 'x.sqlite'));
    db.exec(`create table t (id integer primary key, a text);
      with recursive c(i) as (select 1 union all select i + 1 from c where i < 2000)
      insert into t select i, printf('%.1000c', 'x') from c;`);
    const touch = db.prepare("update t set a = printf('%.1000c', char(65 + ?)) where id % 60 = ?");
    db.exec('begin immediate');
    for (let i = 0; i < 5; i++) {
      db.exec('savepoint w');
      touch.run(i, i);
      db.exec('release w');
    }
    const open = await sqliteTempFiles();
    db.exec('commit');
    assert.deepEqual(open, []);
    assert.equal(db.prepare("select count(*) from t where a like 'E%'").pluck().get(), 34);
    assert.equal(db.pragma('temp_store', { simple: true }), 2); // MEMORY
    db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it('migrations keep temporary storage on files (a statement may rewrite a whole table), then give memory back', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'db-test-'));
  const handle = createDb({ kind: 'sqlite', file: join(dir, 'x.sqlite') });
  try {
    // What the migrator sends, in order: the pragmas and the first CREATE TABLE.
    const sent: string[] = [];
    const recorder: KyselyPlugin = {
      transformQuery: ({ node }: { node: RootOperationNode }) => {
        if (node.kind === 'RawNode') sent.push(node.sqlFragments.join('?'));
        else if (node.kind === 'CreateTableNode') sent.push('create table');
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    await migrateToLatest(handle.db.withPlugin(recorder));
    const pragmas = sent.filter((s) => s.startsWith('pragma temp_store'));
    assert.deepEqual(pragmas, ['pragma temp_store = file', 'pragma temp_store = memory']);
    const firstCreate = sent.indexOf('create table');
    assert.ok(firstCreate > sent.indexOf('pragma temp_store = file'));
    assert.ok(firstCreate < sent.indexOf('pragma temp_store = memory'));
    const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(handle.db);
    assert.equal(rows[0]?.temp_store, 2); // MEMORY again
  } finally {
    await handle.destroy();
    await rm(dir, { recursive: true, force: true });
  }
});

it('DATABASE_URL selects the database', () => {
  assert.deepEqual(parseDatabaseUrl('postgres://u@h/db'), { kind: 'postgres', url: 'postgres://u@h/db' });
  assert.deepEqual(parseDatabaseUrl('postgresql://u@h/db'), { kind: 'postgres', url: 'postgresql://u@h/db' });
  assert.equal(parseDatabaseUrl('file:/tmp/a.sqlite').kind, 'sqlite');
  assert.equal((parseDatabaseUrl('file:/tmp/a.sqlite') as { file: string }).file, '/tmp/a.sqlite');
  assert.match((parseDatabaseUrl(undefined) as { file: string }).file, /data\/app\.sqlite$/);
});
