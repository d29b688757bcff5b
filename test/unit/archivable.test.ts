import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import type { Db } from '../../src/db/index.js';
import type { AuthContext } from '../../src/plugins/auth.js';
import { ArchivableListQuery, archivable } from '../../src/shared/archivable.js';
import { AppError } from '../../src/shared/errors.js';

type Row = { id: number; external_id: string | null; archived_at: string | null; updated_at: string };
type Values = Partial<Omit<Row, 'id'>>;

// Inside a transaction without savepoints, transact() runs the work on the handle itself: the
// helper can be exercised on an in-memory table, without a database.
const db = { isTransaction: true } as unknown as Db;
const auth = { accountId: 1 } as AuthContext;

function table(rows: Row[]) {
  const writes: [number, Values][] = [];
  const records = archivable<Row, Values>({
    noun: 'Thing',
    find: async (_db, _account, id) => rows.find((r) => r.id === id),
    findByExternalId: async (_db, _account, value) => rows.find((r) => r.external_id === value),
    update: async (_db, _account, id, values) => {
      const row = rows.find((r) => r.id === id);
      if (!row) return undefined;
      writes.push([id, values]);
      return Object.assign(row, values);
    },
  });
  return { records, writes };
}

const row = (id: number, external_id: string | null = null): Row => ({
  id,
  external_id,
  archived_at: null,
  updated_at: '2026-01-01T00:00:00.000Z',
});

describe('archivable', () => {
  it('answers 404 naming the resource for a record not in the account', async () => {
    const { records } = table([]);
    await assert.rejects(records.get(db, auth, 7), (e: unknown) => {
      assert.ok(e instanceof AppError);
      assert.equal(e.code, 'not_found');
      assert.equal(e.message, 'Thing not found');
      return true;
    });
  });

  it('archives with one timestamp; archiving again and restoring an active record write nothing', async () => {
    const { records, writes } = table([row(1)]);
    const archived = await records.setArchived(db, auth, 1, true);
    assert.ok(archived.archived_at);
    assert.equal(archived.updated_at, archived.archived_at);
    const first = archived.archived_at;
    assert.equal((await records.setArchived(db, auth, 1, true)).archived_at, first);
    assert.equal(writes.length, 1);
    assert.equal((await records.setArchived(db, auth, 1, false)).archived_at, null);
    await records.setArchived(db, auth, 1, false);
    assert.equal(writes.length, 2);
  });

  it('sets the external identifier by the one rule (force moves it, the same value writes nothing)', async () => {
    const { records, writes } = table([row(1, 'a'), row(2)]);
    await assert.rejects(records.setExternalId(db, auth, 2, { external_id: 'a' }), {
      code: 'external_id_taken',
    });
    const moved = await records.setExternalId(db, auth, 2, { external_id: 'a', force: true });
    assert.equal(moved.external_id, 'a');
    assert.equal((await records.get(db, auth, 1)).external_id, null);
    assert.deepEqual(
      writes.map(([id, v]) => [id, v.external_id]),
      [
        [1, null],
        [2, 'a'],
      ],
    );
    await records.setExternalId(db, auth, 2, { external_id: 'a' });
    assert.equal(writes.length, 2);
    await assert.rejects(records.assertExternalIdFree(db as never, auth, 'a'), { code: 'external_id_taken' });
  });
});

describe('ArchivableListQuery', () => {
  it('puts paging and sort first, then archived, updated_since and the own filters', () => {
    const q = ArchivableListQuery(['name'], { q: Type.Optional(Type.String()) });
    const keys = Object.keys(q.properties);
    assert.ok(keys.includes('sort') && keys.includes('page'));
    assert.deepEqual(keys.slice(-3), ['archived', 'updated_since', 'q']);
    assert.equal((q as { additionalProperties?: unknown }).additionalProperties, false);
  });
});
