import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/shared/errors.js';
import {
  applyExternalId,
  assertExternalIdFree,
  EXTERNAL_ID_DESCRIPTION,
  type ExternalIdStore,
  externalIdDescription,
} from '../../src/shared/external-id.js';

type Rec = { id: number; external_id: string | null };

/** An in-memory store: records by id, and the writes made. */
function memoryStore(records: Rec[]) {
  const writes: [number, string | null][] = [];
  const store: ExternalIdStore<Rec> = {
    noun: 'Thing',
    findHolder: async (value) => records.find((r) => r.external_id === value),
    write: async (id, value) => {
      writes.push([id, value]);
      const rec = records.find((r) => r.id === id)!;
      rec.external_id = value;
      return { ...rec };
    },
  };
  return { store, writes };
}

const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof AppError);
  return err;
};

describe('applyExternalId', () => {
  it('sets a free value and answers the changed record', async () => {
    const { store, writes } = memoryStore([{ id: 1, external_id: null }]);
    const out = await applyExternalId(store, { id: 1, external_id: null }, { external_id: 'a' });
    assert.deepEqual(out, { id: 1, external_id: 'a' });
    assert.deepEqual(writes, [[1, 'a']]);
  });

  it('changes nothing for the value the record already has', async () => {
    const { store, writes } = memoryStore([{ id: 1, external_id: 'a' }]);
    assert.equal(await applyExternalId(store, { id: 1, external_id: 'a' }, { external_id: 'a' }), undefined);
    assert.deepEqual(writes, []);
  });

  it('refuses replacing (and clearing) without force: external_id_set', async () => {
    const { store, writes } = memoryStore([{ id: 1, external_id: 'a' }]);
    for (const external_id of ['b', null]) {
      const err = await refusal(applyExternalId(store, { id: 1, external_id: 'a' }, { external_id }));
      assert.equal(err.code, 'external_id_set');
      assert.equal(err.message, 'Thing 1 already has external_id "a"; send "force": true to replace it');
    }
    assert.deepEqual(writes, []);
  });

  it('refuses a value another record holds without force: external_id_taken', async () => {
    const records = [
      { id: 1, external_id: null },
      { id: 2, external_id: 'a' },
    ];
    const { store, writes } = memoryStore(records);
    const err = await refusal(applyExternalId(store, records[0]!, { external_id: 'a', force: false }));
    assert.equal(err.code, 'external_id_taken');
    assert.equal(err.message, 'Thing 2 already has external_id "a"; send "force": true to move it here');
    assert.deepEqual(writes, []);
  });

  it('with force moves the value: the holder is cleared first', async () => {
    const records = [
      { id: 1, external_id: 'old' },
      { id: 2, external_id: 'a' },
    ];
    const { store, writes } = memoryStore(records);
    const out = await applyExternalId(store, { ...records[0]! }, { external_id: 'a', force: true });
    assert.deepEqual(out, { id: 1, external_id: 'a' });
    assert.deepEqual(writes, [
      [2, null],
      [1, 'a'],
    ]);
  });
});

describe('assertExternalIdFree', () => {
  it('passes free and empty values, refuses a held one', async () => {
    const { store } = memoryStore([{ id: 4, external_id: 'a' }]);
    await assertExternalIdFree(store, 'b');
    await assertExternalIdFree(store, null);
    await assertExternalIdFree(store, undefined);
    const err = await refusal(assertExternalIdFree(store, 'a'));
    assert.equal(err.code, 'external_id_taken');
    assert.equal(err.message, 'Thing 4 already has external_id "a"');
  });
});

describe('externalIdDescription', () => {
  it('names the event, or leaves events out for a resource without them', () => {
    assert.equal(
      externalIdDescription({ noun: 'company', event: 'company:updated' }),
      `${EXTERNAL_ID_DESCRIPTION} Each changed company records a \`company:updated\` event.`,
    );
    const plain = externalIdDescription(null);
    assert.ok(plain.endsWith('the other record loses its `external_id`.'));
    assert.ok(!plain.includes('event'));
  });
});
