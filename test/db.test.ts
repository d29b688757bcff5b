import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { parseDatabaseUrl } from '../src/config.js';
import { openSqlite } from '../src/db/index.js';

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

it('DATABASE_URL selects the database', () => {
  assert.deepEqual(parseDatabaseUrl('postgres://u@h/db'), { kind: 'postgres', url: 'postgres://u@h/db' });
  assert.deepEqual(parseDatabaseUrl('postgresql://u@h/db'), { kind: 'postgres', url: 'postgresql://u@h/db' });
  assert.equal(parseDatabaseUrl('file:/tmp/a.sqlite').kind, 'sqlite');
  assert.equal((parseDatabaseUrl('file:/tmp/a.sqlite') as { file: string }).file, '/tmp/a.sqlite');
  assert.match((parseDatabaseUrl(undefined) as { file: string }).file, /data\/app\.sqlite$/);
});
