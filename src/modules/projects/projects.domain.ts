/** The rules of writing projects (beyond the specification), as pure functions. */
import type { FieldError } from '../../shared/errors.js';

/** A project may not end before it starts. */
export function periodErrors(start: string | null, end: string | null): FieldError[] {
  return start !== null && end !== null && end < start
    ? [{ field: 'end_date', message: 'must not be before start_date' }]
    : [];
}

/** Ids the account does not have, as one error naming the field. */
export function unknownIdErrors(
  field: string,
  ids: readonly number[],
  own: ReadonlySet<number>,
): FieldError[] {
  const missing = ids.filter((id) => !own.has(id));
  return missing.length > 0
    ? [{ field, message: `no such record in this account: ${missing.join(', ')}` }]
    : [];
}
