import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Type } from 'typebox';
import { keyedSection } from '../../src/shared/keyed-section.js';

it('keyedSection inserts items in file order and remembers key → id under the section key', async () => {
  const remembered: [string, string | undefined, number][] = [];
  const ctx = {
    remember: (kind: string, key: string | undefined, id: number) => remembered.push([kind, key, id]),
  };
  const places: string[] = [];
  const section = keyedSection<typeof ctx, { key?: string }>({
    key: 'suppliers',
    item: Type.Object({}),
    description: 'd',
    insert: async (_ctx, item, at) => {
      places.push(at);
      return { key: item.key, id: 10 + places.length };
    },
  });
  assert.deepEqual([section.key, section.description], ['suppliers', 'd']);
  await section.run(ctx, [{ key: 'a' }, {}, { key: 'c' }]);
  assert.deepEqual(places, ['suppliers.0', 'suppliers.1', 'suppliers.2']);
  assert.deepEqual(remembered, [
    ['suppliers', 'a', 11],
    ['suppliers', undefined, 12],
    ['suppliers', 'c', 13],
  ]);
});
