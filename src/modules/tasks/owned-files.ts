import type { Transaction } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { type EventInput, type EventKind, recordEvent } from '../../shared/events.js';
import type { AuthContext } from '../../shared/tokens.js';
import { type FileRow, filesOf } from '../files/files.public.js';

/** What of tasks and comments is shared: both own files and record their changes as events. */
type Owner = 'task' | 'comment';

/** Rows mapped to their answers, each with the files it owns (one query for all of them). */
export async function withFilesOf<R extends { id: number }, T>(
  db: Db,
  accountId: number,
  type: Owner,
  rows: R[],
  map: (row: R, files: FileRow[]) => T,
): Promise<T[]> {
  const byOwner = new Map<number, FileRow[]>(rows.map((r) => [r.id, []]));
  const ids = rows.map((r) => r.id);
  for (const f of await filesOf(db, accountId, type, ids)) byOwner.get(f.owner_id!)?.push(f);
  return rows.map((r) => map(r, byOwner.get(r.id) ?? []));
}

/** Records the change's event in its transaction, with the record as the API returns it. */
export async function recordChange<T extends { id: number }>(
  trx: Transaction<Database>,
  auth: AuthContext,
  kind: EventKind,
  type: Owner,
  data: T,
): Promise<T> {
  await recordEvent(trx, changeEvent(auth, kind, type, data));
  return data;
}

/** The event of a change to a record, as `recordChange` writes it. */
export const changeEvent = (
  auth: AuthContext,
  kind: EventKind,
  type: Owner,
  data: { id: number },
): EventInput => ({
  accountId: auth.accountId,
  kind,
  resourceType: type,
  resourceId: data.id,
  data,
  integrationId: auth.integrationId,
});
