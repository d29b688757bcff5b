import type { Transaction } from 'kysely';
import { type TSchema, Type } from 'typebox';
import type { Database } from '../db/schema.js';
import { AppError } from '../shared/errors.js';

/** The optional `key` of an item, by which later records of the file refer to it. */
export const ImportKey = Type.String({
  minLength: 1,
  description: 'Reference used by later records of the file',
});

/** State shared by the sections of one import: the transaction, the account, and key -> id maps. */
export class ImportContext {
  private readonly keys = new Map<string, Map<string, number>>();
  readonly counts: Record<string, number> = {};

  constructor(
    readonly trx: Transaction<Database>,
    readonly accountId: number,
  ) {}

  /** Remembers that `key` of `kind` (e.g. "users") became row `id`. */
  remember(kind: string, key: string | undefined, id: number): void {
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
    if (key === undefined) return;
    const m = this.keys.get(kind) ?? new Map<string, number>();
    this.keys.set(kind, m);
    if (m.has(key)) throw new AppError('validation_failed', `${kind}: key "${key}" is used twice`);
    m.set(key, id);
  }

  /** The id behind a key given earlier in the file; a clear error names a missing one. */
  ref(kind: string, key: string, where: string): number {
    const id = this.keys.get(kind)?.get(key);
    if (id === undefined) {
      throw new AppError('invalid_reference', `${where}: no ${kind} with key "${key}" earlier in the file`, {
        errors: [{ field: where, message: `unknown ${kind} key "${key}"` }],
      });
    }
    return id;
  }

  optionalRef(kind: string, key: string | null | undefined, where: string): number | null {
    return key === undefined || key === null ? null : this.ref(kind, key, where);
  }
}

/**
 * One top-level key of the import file. Sections run in the order of the registry, each in
 * the one transaction of the import, so a file that fails anywhere imports nothing.
 */
export interface ImportSection {
  key: string;
  /** Schema of one item of the section's array. */
  item: TSchema;
  description: string;
  run(ctx: ImportContext, items: unknown[]): Promise<void>;
}
