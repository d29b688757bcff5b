import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { BASES } from './fuzz/bases.js';
import { operations } from './fuzz/openapi.js';
import { buildWorld, type World } from './fuzz/world.js';
import { describeEachDb } from './helpers.js';

/** A value of the ignored field's own type: an ignored field is still type-checked. */
const ignoredValue = (key: string, schema: Record<string, any>): unknown => {
  const types = [schema, ...(schema.anyOf ?? [])].map((s: Record<string, any>) => s.type);
  return types.includes('string') ? `ignored-${key}` : types.includes('array') ? [] : null;
};

/**
 * Every PATCH operation of the OpenAPI document: the same change sent a second time, and a
 * body of only ignored fields, change nothing — 200 with the unchanged resource, the same
 * `updated_at`, no event in the outbox (so no webhook `…:updated`).
 */
describeEachDb(
  'no phantom changes: every PATCH that changes nothing',
  (ctx) => {
    let world: World;
    before(async () => {
      world = await buildWorld(ctx.app, ctx.db, { main: ctx.account.accountId, other: ctx.other.accountId });
    });

    const events = async () =>
      Number(
        (
          await ctx.db
            .selectFrom('events')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('walks every PATCH route: current values and ignored fields change nothing', async () => {
      const doc = ctx.app.swagger() as Record<string, any>;
      const patches = operations(doc).filter((o) => o.method === 'PATCH');
      assert.ok(patches.length >= 9, `only ${patches.length} PATCH operations`);
      for (const op of patches) {
        const maker = BASES[op.key]?.[0];
        assert.ok(maker, `no base request for ${op.key} in test/fuzz/bases.ts`);
        const base = maker(world.named, world);
        const url = op.path.replace(/\{(\w+)\}/g, (_, p: string) => String(base.params?.[p]));
        const first = await world.api.patch(url, base.body);
        assert.equal(first.status, 200, `${op.key} (first): ${first.text}`);
        const before = await events();

        const again = await world.api.patch(url, base.body);
        assert.equal(again.status, 200, `${op.key} (same values): ${again.text}`);
        assert.deepEqual(again.body.data, first.body.data, `${op.key}: the resource is unchanged`);
        assert.equal(again.body.data.updated_at, first.body.data.updated_at, `${op.key}: updated_at kept`);
        assert.equal(await events(), before, `${op.key}: no event for the same values`);

        const body = Object.values<Record<string, any>>(op.bodies)[0]!;
        const ignored = Object.entries<Record<string, any>>(body.properties ?? {}).filter(
          ([, s]) => s['x-ignored'],
        );
        if (ignored.length === 0) continue;
        const only = Object.fromEntries(ignored.map(([k, s]) => [k, ignoredValue(k, s)]));
        const res = await world.api.patch(url, only);
        assert.equal(res.status, 200, `${op.key} (ignored fields): ${res.text}`);
        assert.deepEqual(res.body.data, first.body.data, `${op.key}: ignored fields change nothing`);
        assert.equal(await events(), before, `${op.key}: no event for ignored fields`);
      }
    });

    it('a real change still bumps updated_at and records its event', async () => {
      const url = `/tasks/${world.named.task}`;
      const before = await world.api.get(url);
      const n = await events();
      const res = await world.api.patch(url, { name: `Renamed ${before.body.data.name}` });
      assert.equal(res.status, 200);
      assert.notEqual(res.body.data.updated_at, before.body.data.updated_at);
      assert.equal(await events(), n + 1);
    });
  },
  // Any mailbox host: the world's mailbox names a host this network cannot resolve.
  { config: { mailboxAllowPrivate: true } },
);
