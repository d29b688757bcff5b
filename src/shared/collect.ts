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
