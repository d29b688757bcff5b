/** A character that must be escaped inside a quoted element of an array literal. */
const NEEDS_ESCAPE = /["\\]/;

/**
 * A one-dimensional PostgreSQL array literal (`{1,NULL,"a \"b\""}`) of plain values — null or
 * undefined, numbers, bigints, booleans, strings — as `pg` would write it for an array
 * parameter; undefined when a value is of another kind (a Date, a Buffer, an object: those are
 * left to `pg`). Every array parameter goes through it (db/pg-pool.ts).
 *
 * Why not leave it to `pg`: its encoder quotes every element and runs two regular-expression
 * replacements over each, numbers included; for the one-statement invoice create (issue 15,
 * one array per column, some sixty values an invoice) that was 9 % of the service's CPU per
 * create on PostgreSQL. Here a number goes as it is and a string is escaped only when it holds
 * a quote or a backslash. Every string is still quoted, so `NULL`, an empty string, commas,
 * braces and blanks stay text.
 */
export function pgArrayLiteral(values: readonly unknown[]): string | undefined {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const v = values[i];
    if (v == null) out += 'NULL';
    else if (typeof v === 'string')
      out += NEEDS_ESCAPE.test(v) ? `"${v.replace(/[\\"]/g, '\\$&')}"` : `"${v}"`;
    else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') out += String(v);
    else return undefined;
  }
  return `${out}}`;
}
