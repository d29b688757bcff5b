import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { BASES, MULTIPART_DATA_BASES, MULTIPART_FILE } from './fuzz/bases.js';
import { fieldPaths } from './fuzz/generate.js';
import { fieldTable } from './fuzz/ids.js';
import { isIdName, mainType, type Operation, operations } from './fuzz/openapi.js';
import { changedTables, snapshot } from './fuzz/snapshot.js';
import { buildWorld, MISSING_ID, type World } from './fuzz/world.js';
import { describeEachDb, multipart } from './helpers.js';

/**
 * Every id in every request body names a record of the token's account: another tenant's id
 * and an id of nothing are refused (404, or 422 naming the field) and store nothing. The
 * fields come from the OpenAPI document, so a new one without a base request fails here.
 */

/** `*_id` request fields that are not references to a record of ours. */
const NOT_REFERENCES: Record<string, string> = {
  external_id: "the integration's own identifier of a record",
  vat_id: 'a VAT registration number',
  supplier_vat_id: "the supplier's VAT registration number",
  'POST /oauth/token client_id': 'the OAuth client identifier (a string credential)',
};

const isReference = (op: Operation, path: string) => {
  const name = path.split('.').at(-1)!;
  return isIdName(name) && !(name in NOT_REFERENCES) && !(`${op.key} ${path}` in NOT_REFERENCES);
};

/** Id-shaped fields of an operation's JSON body, as dotted paths (array items as `0`). */
function documentedIdFields(op: Operation): string[] {
  const schema = op.bodies['application/json'];
  if (!schema) return [];
  return fieldPaths(schema)
    .map((f) => f.path.join('.'))
    .filter((p) => isReference(op, p));
}

/** Id-shaped fields a base body sets, with their values. */
function idFieldsOf(op: Operation, body: unknown, prefix = ''): { path: string; value: number }[] {
  if (body === null || typeof body !== 'object') return [];
  return Object.entries(body).flatMap(([k, v]) => {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'number' && isReference(op, path)) return [{ path, value: v }];
    // A list of ids (`effort_ids`): its first id stands for all of them.
    if (Array.isArray(v) && typeof v[0] === 'number' && isReference(op, path)) return [{ path, value: v[0] }];
    return idFieldsOf(op, v, path);
  });
}

function withValue(body: Record<string, unknown>, path: string, value: number) {
  const copy = structuredClone(body) as any;
  const keys = path.split('.');
  let node = copy;
  for (const k of keys.slice(0, -1)) node = node[k];
  node[keys.at(-1)!] = Array.isArray(node[keys.at(-1)!]) ? [value] : value;
  return copy;
}

describeEachDb(
  'every reference is resolved inside the token’s account',
  (ctx) => {
    let world: World;
    let ops: Operation[];
    before(async () => {
      world = await buildWorld(ctx.app, ctx.db, { main: ctx.account.accountId, other: ctx.other.accountId });
      ops = operations(ctx.app.swagger() as any);
    });

    it('has a base request naming every id-shaped body field of the document', () => {
      const missing: string[] = [];
      for (const op of ops) {
        const covered = new Set(
          (BASES[op.key] ?? []).flatMap((make) =>
            idFieldsOf(op, make(world.named, world).body).map((f) => f.path),
          ),
        );
        for (const field of documentedIdFields(op))
          if (!covered.has(field)) missing.push(`${op.key}: ${field}`);
      }
      assert.deepEqual(missing, [], 'add a base request naming these fields to test/fuzz/bases.ts');
    });

    it('knows the table of every id-shaped body field and query filter', () => {
      const unknown: string[] = [];
      for (const op of ops) {
        const names = [
          ...documentedIdFields(op),
          ...op.params.filter((p) => p.in === 'query' && isReference(op, p.name)).map((p) => p.name),
        ].map((p) => p.split('.').at(-1)!);
        for (const name of names) if (!fieldTable(op.key, name)) unknown.push(`${op.key}: ${name}`);
      }
      assert.deepEqual(unknown, [], 'add these names to test/fuzz/ids.ts');
    });

    it("refuses another tenant's id and an id of nothing in every body, storing nothing", async () => {
      const failures: string[] = [];
      for (const op of ops) {
        for (const make of BASES[op.key] ?? []) {
          const base = make(world.named, world);
          const fields = idFieldsOf(op, base.body);
          if (!fields.length) continue;
          const url = `/api/v1${op.path.replace(/\{([^}]+)\}/g, (_, n: string) => String(base.params?.[n]))}`;
          const send = (body: unknown) =>
            ctx.app.inject({
              method: op.method as 'POST',
              url,
              headers: { authorization: `Bearer ${world.api.token}`, 'content-type': 'application/json' },
              payload: JSON.stringify(body),
            });
          for (const field of fields) {
            const table = fieldTable(op.key, field.path.split('.').at(-1)!)!;
            const foreign = world.other[table]?.[0];
            assert.ok(foreign, `the other tenant has no ${table}`);
            for (const [what, value] of [
              ["another tenant's id", foreign],
              ['an id of nothing', MISSING_ID],
            ] as const) {
              const before = await snapshot(ctx.db);
              const res = await send(withValue(base.body, field.path, value));
              const changed = changedTables(before, await snapshot(ctx.db));
              const problem = res.statusCode === 422 ? res.json() : undefined;
              const named = problem?.errors?.some((e: { field: string }) => e.field === field.path);
              if (!(res.statusCode === 404 || (res.statusCode === 422 && named)) || changed.length)
                failures.push(
                  `${op.key} ${field.path} = ${what} (${value}): ${res.statusCode} ${res.body.slice(0, 240)}${changed.length ? ` — stored: ${changed.join(', ')}` : ''}`,
                );
            }
          }
          // The same request with the account's own ids is accepted: the refusals above were
          // about the reference, not about something else in the body.
          const res = await send(make(world.named, world).body);
          if (res.statusCode >= 300)
            failures.push(`${op.key} base request refused: ${res.statusCode} ${res.body.slice(0, 300)}`);
        }
      }
      assert.deepEqual(failures, []);
    });

    it('has a base for every upload route that takes the record as JSON in `data`', () => {
      const uncovered = ops
        .filter((op) => op.bodies['multipart/form-data']?.properties?.data)
        .map((op) => op.key)
        .filter((key) => !MULTIPART_DATA_BASES[key]?.length);
      assert.deepEqual(uncovered, [], 'add these to MULTIPART_DATA_BASES in test/fuzz/bases.ts');
    });

    it("refuses another tenant's id and an id of nothing inside multipart `data`, storing nothing", async () => {
      const failures: string[] = [];
      for (const [key, makers] of Object.entries(MULTIPART_DATA_BASES)) {
        const op = ops.find((o) => o.key === key)!;
        for (const make of makers) {
          const send = async (data: unknown) => {
            const form = await multipart(MULTIPART_FILE, { data: JSON.stringify(data) });
            return ctx.app.inject({
              method: 'POST',
              url: `/api/v1${op.path}`,
              headers: { authorization: `Bearer ${world.api.token}`, ...form.headers },
              payload: form.body,
            });
          };
          const base = make(world.named, world);
          for (const field of idFieldsOf(op, base.body)) {
            const foreign = world.other[fieldTable(op.key, field.path.split('.').at(-1)!)!]![0]!;
            for (const value of [foreign, MISSING_ID]) {
              const before = await snapshot(ctx.db);
              const res = await send(withValue(base.body, field.path, value));
              const changed = changedTables(before, await snapshot(ctx.db));
              const fields =
                res.statusCode === 422 ? res.json().errors?.map((e: { field: string }) => e.field) : [];
              const named = fields?.some((f: string) => f === field.path || f === `data.${field.path}`);
              if (!(res.statusCode === 404 || named) || changed.length)
                failures.push(
                  `${key} data.${field.path} = ${value}: ${res.statusCode} ${res.body.slice(0, 240)} ${changed.join(', ')}`,
                );
            }
          }
          const res = await send(make(world.named, world).body);
          if (res.statusCode >= 300)
            failures.push(`${key} base upload refused: ${res.statusCode} ${res.body.slice(0, 300)}`);
        }
      }
      assert.deepEqual(failures, []);
    });

    it("never lists another tenant's records through an id filter", async () => {
      const leaks: string[] = [];
      for (const op of ops.filter((o) => o.method === 'GET')) {
        for (const p of op.params.filter((x) => x.in === 'query' && isReference(op, x.name))) {
          if (mainType(p.schema) !== 'integer') continue;
          const foreign = world.other[fieldTable(op.key, p.name)!]?.[0];
          const path = op.path.replace(/\{id\}/, String(world.named.project));
          const res = await world.api.get(`${path}?${p.name}=${foreign}`);
          if (res.status >= 500 || (res.status === 200 && res.body.data.length > 0))
            leaks.push(`${op.key}?${p.name}=${foreign}: ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
      assert.deepEqual(leaks, []);
    });
  },
  // Any mailbox host: the world's mailbox names a host this network cannot resolve.
  { config: { mailboxAllowPrivate: true } },
);
