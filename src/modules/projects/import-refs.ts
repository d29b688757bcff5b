import type { ImportContext } from '../../import/context.js';
import { AppError, type FieldError } from '../../shared/errors.js';

/** 422 for a bad import item, naming the field with its path in the file. */
export function importError(errors: FieldError[]): AppError {
  return new AppError('validation_failed', errors.map((e) => `${e.field}: ${e.message}`).join('; '), {
    errors,
  });
}

/**
 * A user named in an import file: the key of a user earlier in the file or, for imports
 * into an existing account, the e-mail address of one of its users.
 */
export async function userRef(ctx: ImportContext, ref: string, where: string): Promise<number> {
  try {
    return ctx.ref('users', ref, where);
  } catch (err) {
    const row = await ctx.trx
      .selectFrom('users')
      .select('id')
      .where('account_id', '=', ctx.accountId)
      .where('email', '=', ref.toLowerCase())
      .executeTakeFirst();
    if (row) return row.id;
    throw err;
  }
}

/** A client: the key of a client earlier in the file, or the shortcode of an existing client. */
export async function clientRef(ctx: ImportContext, ref: string, where: string): Promise<number> {
  try {
    return ctx.ref('clients', ref, where);
  } catch (err) {
    const row = await ctx.trx
      .selectFrom('clients')
      .select('id')
      .where('account_id', '=', ctx.accountId)
      .where('shortcode', '=', ref)
      .executeTakeFirst();
    if (row) return row.id;
    throw err;
  }
}

/** Custom field errors of an item, re-rooted at the item's path. */
export async function withPath<T>(path: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError && err.errors)
      throw importError(err.errors.map((e) => ({ field: `${path}.${e.field}`, message: e.message })));
    throw err;
  }
}
