import { mainType, nonNull, type Schema } from './openapi.js';

/** A value the schema accepts, for fields a base request does not give. */
export function validValue(schema: Schema): unknown {
  const s = nonNull(schema)[0];
  if (!s) return null;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.default !== undefined) return s.default;
  switch (s.type) {
    case 'string':
      if (s.format === 'date') return '2026-03-01';
      if (s.format === 'date-time') return '2026-03-01T00:00:00Z';
      if (s.format === 'email') return 'fuzz@example.com';
      if (s.format === 'uri') return 'https://example.com/';
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    case 'integer':
      return Math.max(1, s.minimum ?? 1);
    case 'number':
      return Math.max(1, s.minimum ?? 1);
    case 'boolean':
      return false;
    case 'array':
      return s.minItems ? [validValue(s.items ?? {})] : [];
    default: {
      const out: Record<string, unknown> = {};
      for (const name of s.required ?? []) out[name] = validValue(s.properties?.[name] ?? {});
      return out;
    }
  }
}

export interface Bad {
  label: string;
  value: unknown;
}

const NUMBERS = [1e308, -1e308, 1.005, 2147483648, -1, 0, 2 ** 53 + 2, 1e-7, 0.30000000000000004];
const DATES = ['0000-01-01', '9999-12-31', '2026-02-30', 'not-a-date', '2026-13-01', '+275760-09-13', ''];

/** Bad values for one body field, derived from its schema. */
export function badValues(schema: Schema, opts: { otherId?: number; missingId: number }): Bad[] {
  const s = nonNull(schema)[0] ?? {};
  const type = mainType(schema);
  const long = 'x'.repeat(Math.min((s.maxLength ?? 100_000) + 1, 200_000));
  const out: Bad[] = [
    { label: 'null', value: null },
    { label: 'wrong type: object', value: { a: 1 } },
    { label: 'wrong type: array', value: [1] },
    { label: 'wrong type: boolean', value: true },
  ];
  if (type !== 'string') out.push({ label: 'wrong type: string', value: '1' });
  if (type !== 'number' && type !== 'integer') out.push({ label: 'wrong type: number', value: 1 });
  if (type === 'string') {
    out.push(
      { label: 'NUL byte', value: 'a\u0000b' },
      { label: 'past maxLength', value: long },
      { label: 'empty', value: '' },
      { label: 'lone surrogate', value: '\ud800x' },
    );
    if (s.format === 'date' || s.format === 'date-time')
      for (const d of DATES) out.push({ label: `date ${d}`, value: d });
  }
  if (type === 'number' || type === 'integer') {
    for (const n of NUMBERS) out.push({ label: `number ${n}`, value: n });
    // At and just past the published bounds: the edge a service's arithmetic must survive.
    if (typeof s.maximum === 'number')
      out.push(
        { label: `maximum ${s.maximum}`, value: s.maximum },
        { label: 'past maximum', value: s.maximum + 1 },
      );
    if (typeof s.minimum === 'number')
      out.push(
        { label: `minimum ${s.minimum}`, value: s.minimum },
        { label: 'past minimum', value: s.minimum - 1 },
      );
  }
  if (type === 'string' && typeof s.maxLength === 'number' && !s.pattern && !s.format && !s.enum)
    out.push(
      { label: 'maxLength of 2-byte characters', value: '\u00e9'.repeat(s.maxLength) },
      { label: 'maxLength of astral characters', value: '\u{1F4A5}'.repeat(s.maxLength) },
    );
  if (type === 'integer' && opts.otherId !== undefined)
    out.push({ label: "another tenant's id", value: opts.otherId });
  if (type === 'integer') out.push({ label: 'id of nothing', value: opts.missingId });
  if (type === 'array') {
    out.push(
      { label: 'empty array', value: [] },
      { label: 'array of null', value: [null] },
      { label: '2000 items', value: Array.from({ length: 2000 }, () => validValue(s.items ?? {})) },
    );
  }
  return out;
}

/** Every field of a body schema as a path (array items as index 0), with its schema. */
export function fieldPaths(
  schema: Schema,
  prefix: (string | number)[] = [],
  depth = 0,
): { path: (string | number)[]; schema: Schema; required: boolean }[] {
  const s = nonNull(schema)[0];
  if (!s || depth > 4) return [];
  const out: { path: (string | number)[]; schema: Schema; required: boolean }[] = [];
  for (const [name, child] of Object.entries<Schema>(s.properties ?? {})) {
    const path = [...prefix, name];
    out.push({ path, schema: child, required: (s.required ?? []).includes(name) });
    const c = nonNull(child)[0];
    if (c?.type === 'array' && c.items) out.push(...fieldPaths(c.items, [...path, 0], depth + 1));
    else if (c?.properties) out.push(...fieldPaths(c, path, depth + 1));
  }
  return out;
}

/**
 * A copy of `body` with `path` set to `value` (or removed); what is missing on the way is made
 * valid from `schema`, so only the one field is wrong.
 */
export function withField(
  body: unknown,
  schema: Schema,
  path: (string | number)[],
  value: unknown,
  remove = false,
): unknown {
  const root = structuredClone(body ?? {}) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = root;
  let nodeSchema: Schema | undefined = schema;
  for (const [i, key] of path.entries()) {
    if (i === path.length - 1) {
      if (remove) delete node[key];
      else node[key] = value;
      break;
    }
    const s: Schema | undefined = nodeSchema ? nonNull(nodeSchema)[0] : undefined;
    const childSchema: Schema | undefined = typeof key === 'number' ? s?.items : s?.properties?.[key];
    if (node[key] === null || typeof node[key] !== 'object') {
      const made = childSchema ? validValue(childSchema) : undefined;
      node[key] =
        made !== null && typeof made === 'object' ? made : typeof path[i + 1] === 'number' ? [] : {};
    }
    const child = node[key] as Record<string | number, unknown>;
    if (Array.isArray(child) && child.length === 0) {
      const item = childSchema ? validValue(nonNull(childSchema)[0]?.items ?? {}) : {};
      child.push(item !== null && typeof item === 'object' ? item : {});
    }
    node = child;
    nodeSchema = childSchema;
  }
  return root;
}

/**
 * Every scalar field of `body` (and of the schema) at one end of its published bounds at once:
 * numbers at their maximum or minimum, dates at 9999-12-31 or 0001-01-01, bounded strings full.
 * References keep their values, so the request reaches the service.
 */
export function allAtBounds(
  body: unknown,
  schema: Schema,
  side: 'max' | 'min',
  isRef: (name: string) => boolean,
): unknown {
  let out = body;
  for (const f of fieldPaths(schema)) {
    const s = nonNull(f.schema)[0];
    const name = String(f.path.filter((p) => typeof p === 'string').at(-1));
    if (!s || isRef(name) || s.enum || s.const !== undefined) continue;
    let value: unknown;
    if (
      (s.type === 'number' || s.type === 'integer') &&
      typeof s[side === 'max' ? 'maximum' : 'minimum'] === 'number'
    )
      value = s[side === 'max' ? 'maximum' : 'minimum'];
    else if (s.type === 'string' && s.format === 'date') value = side === 'max' ? '9999-12-31' : '0001-01-01';
    else if (s.type === 'string' && typeof s.maxLength === 'number' && !s.pattern && !s.format)
      value = 'x'.repeat(side === 'max' ? s.maxLength : Math.max(s.minLength ?? 0, 1));
    if (value !== undefined) out = withField(out, schema, f.path, value);
  }
  return out;
}
