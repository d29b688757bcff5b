import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError, invalidField } from '../../shared/errors.js';
import type { AuthContext } from '../../shared/tokens.js';
import { KINDS, readableKinds } from './changes.kinds.js';
import {
  changesAfter,
  deleteChangesBefore,
  horizonOf,
  horizonsOf,
  latestPosition,
  type Position,
  positionBefore,
  prunableMarks,
  servedBelow,
  setHorizon,
} from './changes.repository.js';
import type { ChangeList, ChangeListQuery } from './changes.schemas.js';

const START: Position = { xid: '0', id: 0 };

export const encodeCursor = (p: Position): string => Buffer.from(`${p.xid}.${p.id}`).toString('base64url');

export function decodeCursor(cursor: string): Position {
  const m = /^(\d{1,20})\.(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!m) {
    throw invalidField(
      'after',
      'not a cursor of this feed: pass `cursor` or `meta.next_cursor` of an earlier answer',
    );
  }
  return { xid: BigInt(m[1]!).toString(), id: Number(m[2]) };
}

/** A resource of a readable kind that this token still may not see. */
const FORBIDDEN = Symbol('forbidden');

const gone = (err: unknown, code: string) => (err as { code?: string }).code === code;

/**
 * The account's changes after the cursor, in commit order, of the kinds the token may read,
 * each with the resource's current state. The cursor moves past every row read, also past
 * rows whose resource the token may not see, so the next answer goes on from there.
 */
export async function listChanges(db: Db, auth: AuthContext, q: ChangeListQuery): Promise<ChangeList> {
  const after = q.after ? decodeCursor(q.after) : START;
  const horizon = await horizonOf(db, auth.accountId);
  if (horizon && positionBefore(after, horizon)) throw await cursorExpired(db, auth.accountId, horizon);
  const limit = q.limit ?? 100;
  const rows = await changesAfter(db, auth.accountId, auth.integrationId, readableKinds(auth), after, limit);
  const page = rows.slice(0, limit);
  // One read per resource and answer: entries of one resource all show its current state.
  const current = new Map<string, Promise<unknown>>();
  const data: ChangeList['data'] = [];
  for (const r of page) {
    const entry: ChangeList['data'][number] = {
      cursor: encodeCursor(r),
      resource: r.resource,
      id: r.resource_id,
      action: r.action as ChangeList['data'][number]['action'],
      changed_at: r.changed_at,
    };
    if (r.action !== 'deleted') {
      const key = `${r.resource}:${r.resource_id}`;
      let state = current.get(key);
      if (!state) {
        state = KINDS[r.resource]!.load(db, auth, r.resource_id).catch((err) => {
          if (gone(err, 'not_found')) return undefined;
          if (gone(err, 'forbidden') || gone(err, 'insufficient_scope')) return FORBIDDEN;
          throw err;
        });
        current.set(key, state);
      }
      const value = await state;
      if (value === FORBIDDEN) continue;
      if (value !== undefined) entry.data = value;
    }
    data.push(entry);
  }
  const last = page.at(-1);
  return {
    data,
    meta: { next_cursor: encodeCursor(last ?? after), has_more: rows.length > limit },
  };
}

/**
 * 410 for a cursor (or a start without one) before the last pruned entry: what followed it is
 * partly gone. The answer names where the kept entries begin and the feed's end now; either is
 * a place to follow the feed from after reading the lists (docs/changes.md).
 */
async function cursorExpired(db: Db, accountId: number, horizon: Position): Promise<AppError> {
  const latest = (await latestPosition(db, accountId)) ?? horizon;
  return new AppError(
    'cursor_expired',
    'Entries after this cursor were pruned (CHANGE_FEED_RETENTION_DAYS): read the lists, then follow the feed from `cursor` or `latest_cursor`',
    {
      extra: {
        cursor: encodeCursor(horizon),
        latest_cursor: encodeCursor(positionBefore(latest, horizon) ? horizon : latest),
      },
    },
  );
}

/**
 * The change feed's window: deletes the entries older than `before` and moves each account's
 * horizon past them, in one transaction, so no reader is served a cursor that skips a pruned
 * entry without a 410.
 */
export function pruneFeed(db: Db, before: string, now: string): Promise<number> {
  return transact(db, async (trx) => {
    const xmin = await servedBelow(trx);
    const marks = await prunableMarks(trx, before, xmin);
    const known = await horizonsOf(
      trx,
      marks.map((m) => m.account_id),
    );
    for (const m of marks) {
      const old = known.get(m.account_id);
      if (!old || positionBefore(old, m)) await setHorizon(trx, m.account_id, m, now);
    }
    return deleteChangesBefore(trx, before, xmin);
  });
}
