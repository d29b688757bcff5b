import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { strictSchema } from './strict-schema.js';

/** Decimals of a number as written in its shortest round-trip form ("1e-7" has 7). */
export function decimalsOf(value: number): number {
  const [mantissa, exp] = String(value).toLowerCase().split('e');
  const frac = mantissa!.split('.')[1]?.length ?? 0;
  return Math.max(0, frac - Number(exp ?? 0));
}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/**
 * A real calendar date in the years 0001–9999: what both databases store and JavaScript dates
 * format as `YYYY-MM-DD` (ajv-formats lets year 0000 through, which PostgreSQL refuses).
 */
export function isCalendarDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  return d <= (mo === 2 && !isLeap(y) ? 28 : DAYS[mo - 1]!);
}

/** An RFC 3339 timestamp whose date is a calendar date and whose instant (UTC) is in 0001–9999. */
export function isTimestamp(text: string): boolean {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/.exec(
    text,
  );
  if (!m || !isCalendarDate(m[1]!)) return false;
  if (Number(m[2]) > 23 || Number(m[3]) > 59 || Number(m[4]) > 59) return false;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return false;
  const year = new Date(text).getUTCFullYear();
  return year >= 1 && year <= 9999;
}

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: true, // name every bad field, not just the first
    useDefaults: true,
    // Strict input: an undeclared property is an error, never silently dropped (strict-schema.ts).
    removeAdditional: false,
    addUsedSchema: false, // response/body schemas with $id are compiled more than once
    strict: false,
    // JSON numbers are binary floats: 70.07 / 0.01 is 7006.999…, so an exact multipleOf check
    // would refuse valid cent amounts. Compare with a tolerance far below one cent instead.
    multipleOfPrecision: 9,
    ...options,
  });
  addFormats.default(ajv);
  ajv.addFormat('date', { type: 'string', validate: isCalendarDate });
  ajv.addFormat('date-time', { type: 'string', validate: isTimestamp });
  ajv.addKeyword({
    keyword: 'x-max-decimals',
    type: 'number',
    schemaType: 'number',
    error: { message: ({ schema }) => `must have at most ${schema} decimals` },
    validate: (max: number, value: number) => decimalsOf(value) <= max,
  });
  // A field the specification says the endpoint does not change: accepted (so a client may
  // send back what it read) and removed before the handler sees it.
  ajv.addKeyword({
    keyword: 'x-ignored',
    schemaType: 'boolean',
    modifying: true,
    validate: (
      ignored: boolean,
      _data: unknown,
      _schema: unknown,
      cxt?: { parentData?: unknown; parentDataProperty?: string | number },
    ) => {
      if (ignored && cxt?.parentData && typeof cxt.parentData === 'object')
        delete (cxt.parentData as Record<string | number, unknown>)[cxt.parentDataProperty!];
      return true;
    },
  });
  return ajv;
}

/**
 * Where `value` holds a NUL character (U+0000), as an Ajv instance path; undefined if nowhere.
 * PostgreSQL cannot store NUL in text, so it is refused before any query sees it. Iterative:
 * a body may nest arrays thousands deep, and the schema refuses those without recursing.
 */
export function nulPath(value: unknown): string | undefined {
  return holdsNul(value) ? nulPathOf(value) : undefined;
}

/**
 * Whether `value` holds a NUL anywhere: the walk of `nulPathOf` without spelling a path for
 * every value it passes (which cost 1 % of the service's CPU under invoice creates, issue 15);
 * that one runs only when there is a NUL to name.
 */
function holdsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\0')) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object' && v !== null) {
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        if (k.includes('\0')) return true;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return false;
}

function nulPathOf(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\0')) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}/${i}`]);
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, item] = entries[i]!;
        if (k.includes('\0')) return `${path}/${k.replace(/\0/g, '\\u0000')}`;
        stack.push([item, `${path}/${k}`]);
      }
    }
  }
  return undefined;
}

// Bodies are strict JSON: "1" is not a number. Query strings and path parameters are text,
// so they are coerced ("?page=2", "?archived=true").
const bodyAjv = makeAjv({ coerceTypes: false });
const textAjv = makeAjv({ coerceTypes: 'array' });

type Validate = ((data: unknown, cxt?: unknown) => boolean) & { errors?: unknown; schemaEnv?: unknown };

/** Runs the schema's validation after refusing NUL characters anywhere in the value. */
function refusingNul(validate: Validate): Validate {
  const wrapped: Validate = (data, cxt) => {
    const at = nulPath(data);
    if (at !== undefined) {
      wrapped.errors = [
        {
          instancePath: at,
          keyword: 'nul',
          params: {},
          message: 'must not contain the NUL character (U+0000)',
        },
      ];
      return false;
    }
    const ok = validate(data, cxt);
    wrapped.errors = validate.errors;
    return ok;
  };
  // Fastify passes the parent object to Ajv functions (so a root value can be coerced).
  wrapped.schemaEnv = validate.schemaEnv;
  return wrapped;
}

// One compiled function per schema object and part: handlers that validate a JSON value
// themselves (multipart `data` parts) call the compiler per request.
const compiled = new WeakMap<object, Map<string, Validate>>();

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const part = httpPart === 'body' ? 'body' : 'text';
  const byPart = compiled.get(schema as object) ?? new Map<string, Validate>();
  compiled.set(schema as object, byPart);
  let validate = byPart.get(part);
  if (!validate) {
    const ajv = part === 'body' ? bodyAjv : textAjv;
    validate = refusingNul(ajv.compile(strictSchema(schema) as object) as Validate);
    byPart.set(part, validate);
  }
  return validate as ReturnType<FastifySchemaCompiler<unknown>>;
};
