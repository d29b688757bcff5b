/**
 * Strict input, decided once for every route instead of in each schema: a request schema
 * (body, querystring, params) is completed so that
 * - an object refuses properties it does not declare (`additionalProperties: false`), unless
 *   the schema says otherwise (a map such as `custom_fields`, or an explicit `true`);
 * - every string has a `maxLength` and every integer a range both databases can store
 *   (PostgreSQL `integer` ids), where the schema gave none.
 * The result is a copy: the same TypeBox objects also describe answers, which must not change.
 * The route's schema is replaced by the completed one (see plugins/openapi.ts), so the
 * published OpenAPI document shows exactly what is enforced.
 */

/** A string a schema leaves unbounded: long enough for any text field, short enough to store. */
export const DEFAULT_MAX_LENGTH = 10_000;
/** PostgreSQL `integer`: ids, counts and minutes are stored in it. */
export const INT32_MAX = 2_147_483_647;
export const INT32_MIN = -2_147_483_648;

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const types = (s: Schema): unknown[] => [s.type].flat();

function mapValues(obj: unknown, fn: (s: Schema) => unknown): unknown {
  if (!isSchema(obj)) return obj;
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, isSchema(v) ? fn(v) : v]));
}

/**
 * The strict copy of `schema`. `close` is false for the members of an `allOf`, which each
 * describe part of one object: closing one would refuse the properties of the others.
 */
export function strictSchema(schema: unknown, close = true): unknown {
  if (!isSchema(schema) || schema.$ref !== undefined) return schema;
  // The same schema object gives the same copy: the validator compiler caches per object
  // (shared/validation.ts), so each schema is compiled once per process, not once per app.
  const memo = close ? closedCopies : openCopies;
  let copy = memo.get(schema);
  if (copy === undefined) {
    copy = strictCopy(schema, close);
    memo.set(schema, copy);
  }
  return copy;
}

const closedCopies = new WeakMap<Schema, Schema>();
const openCopies = new WeakMap<Schema, Schema>();

function strictCopy(schema: Schema, close: boolean): Schema {
  const s: Schema = { ...schema };
  const t = types(s);

  const isObject = t.includes('object') || (s.type === undefined && isSchema(s.properties));
  if (isObject) {
    if (s.properties !== undefined) s.properties = mapValues(s.properties, (p) => strictSchema(p));
    if (s.patternProperties !== undefined)
      s.patternProperties = mapValues(s.patternProperties, (p) => strictSchema(p));
    if (isSchema(s.additionalProperties)) s.additionalProperties = strictSchema(s.additionalProperties);
    else if (s.additionalProperties === undefined && s.patternProperties === undefined && close)
      s.additionalProperties = false;
  }
  if (t.includes('array') || s.items !== undefined) {
    if (Array.isArray(s.items)) s.items = s.items.map((i) => strictSchema(i));
    else if (isSchema(s.items)) s.items = strictSchema(s.items);
  }
  // Each member of a union is a complete alternative: close each one.
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[key])) s[key] = (s[key] as unknown[]).map((m) => strictSchema(m, close));
  }
  if (Array.isArray(s.allOf)) s.allOf = (s.allOf as unknown[]).map((m) => strictSchema(m, false));

  const bounded = s.enum !== undefined || s.const !== undefined;
  // Dates and timestamps are bounded by their format; a file part is bounded by the upload limit.
  const fixedFormat = ['date', 'date-time', 'binary'].includes(s.format as string);
  if (t.includes('string') && !bounded && !fixedFormat && s.maxLength === undefined) {
    s.maxLength = DEFAULT_MAX_LENGTH;
  }
  if (t.includes('integer') && !bounded) {
    if (s.maximum === undefined && s.exclusiveMaximum === undefined) s.maximum = INT32_MAX;
    if (s.minimum === undefined && s.exclusiveMinimum === undefined) s.minimum = INT32_MIN;
  }
  return s;
}

/** An object schema with no properties at all: the query string of a route that takes none. */
export const NO_PARAMETERS = Object.freeze({ type: 'object', properties: {}, additionalProperties: false });
