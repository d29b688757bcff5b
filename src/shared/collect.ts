import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Ids of a child table grouped by their owner (the groups of each user, the members of each
 * group, …): every owner is present, with an empty list when it has none; rows keep their order.
 */
export function idsByOwner<R>(
  owners: readonly number[],
  rows: readonly R[],
  owner: (r: R) => number,
  id: (r: R) => number,
): Map<number, number[]> {
  const out = new Map<number, number[]>(owners.map((o) => [o, []]));
  for (const r of rows) out.get(owner(r))?.push(id(r));
  return out;
}

/**
 * `read` over `ids` `size` at a time, its results in order, with a turn of the event loop
 * between the reads: SQLite answers without leaving it, so a long read would hold every other
 * request until it ends.
 */
export async function readInSteps<T>(
  ids: readonly number[],
  size: number,
  read: (step: number[]) => Promise<readonly T[]>,
): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += size) {
    if (i > 0) await nextTurn();
    out.push(...(await read(ids.slice(i, i + size))));
  }
  return out;
}
