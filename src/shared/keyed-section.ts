/**
 * The import section whose items each become one row that later sections reference by key
 * (chart of accounts, suppliers, …): one loop that inserts the items in file order and
 * remembers key → id, instead of a copy per section. Typed by shape so that src/shared stays
 * free of src/import: src/import/context.ts's ImportContext and ImportSection fit it.
 */
import type { TSchema } from 'typebox';

/** The part of the import context this loop uses. */
export interface RememberingContext {
  remember(kind: string, key: string | undefined, id: number): void;
}

export interface KeyedSectionSpec<C extends RememberingContext, T> {
  /** The section's key in the file, also the kind its keys are remembered as. */
  key: string;
  /** Schema of one item. */
  item: TSchema;
  description: string;
  /** Inserts one item (`at`: its place, `<key>.<index>`, for errors); its key (if any) and new id. */
  insert: (ctx: C, item: T, at: string) => Promise<{ key: string | undefined; id: number }>;
}

export function keyedSection<C extends RememberingContext, T>(s: KeyedSectionSpec<C, T>) {
  return {
    key: s.key,
    item: s.item,
    description: s.description,
    async run(ctx: C, items: unknown[]): Promise<void> {
      for (const [i, item] of (items as T[]).entries()) {
        const { key, id } = await s.insert(ctx, item, `${s.key}.${i}`);
        ctx.remember(s.key, key, id);
      }
    },
  };
}
