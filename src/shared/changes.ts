/**
 * No phantom changes: every PATCH compares what it would write with the row it has read and
 * writes (bumping `updated_at`, recording an event) only when something differs. One helper
 * for every module, so that "changes nothing" means the same everywhere.
 */

/** Keys that follow a change rather than being one. */
const FOLLOWERS = new Set(['updated_at']);

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const NUMERIC = /^-?\d+(\.\d+)?$/;

/** Values as the databases give them back: bigint as string or number, booleans as 0/1, JSON as text. */
function norm(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof Date) return v.getTime();
  return v;
}

function jsonish(s: string): boolean {
  const c = s.trimStart()[0];
  return c === '{' || c === '[';
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Whether a stored value and a value about to be written mean the same. */
export function sameValue(stored: unknown, next: unknown): boolean {
  const a = norm(stored);
  const b = norm(next);
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (typeof a === 'number' || typeof b === 'number') {
    const sa = String(a);
    const sb = String(b);
    return NUMERIC.test(sa) && NUMERIC.test(sb) && Number(sa) === Number(sb);
  }
  if (typeof a === 'string' && typeof b === 'string') {
    if (NUMERIC.test(a) && NUMERIC.test(b)) return Number(a) === Number(b);
    if (TIMESTAMP.test(a) && TIMESTAMP.test(b)) return Date.parse(a) === Date.parse(b);
    if (jsonish(a) && jsonish(b)) {
      try {
        return deepEqual(JSON.parse(a), JSON.parse(b));
      } catch {
        return false;
      }
    }
    return false;
  }
  return deepEqual(a, b);
}

/**
 * The entries of `values` that would change `row` (undefined entries are not written and
 * `updated_at` follows a change): empty when the write would change nothing.
 */
export function changedFields<T extends object>(row: object, values: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined || FOLLOWERS.has(k)) continue;
    if (!sameValue((row as Record<string, unknown>)[k], v)) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** True when writing `values` over `row` would change nothing. */
export function changesNothing(row: object, values: object): boolean {
  return Object.keys(changedFields(row, values)).length === 0;
}
