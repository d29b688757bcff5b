import type { Db } from '../../db/schema.js';
import { listAudit } from './audit.read-model.js';
import * as repo from './audit.repository.js';

export type ActorKind = 'user' | 'token' | 'cli';

export interface AuditEvent {
  accountId: number;
  actorUserId: number | null;
  actorKind: ActorKind;
  /** `<area>.<verb>`, e.g. 'user.invite', 'webhook.rotate_secret', 'account.profile_update'. */
  action: string;
  targetType: string | null;
  targetId: string | number | null;
  /** What changed; never secrets (a token, a password, a signing key). */
  detail?: Record<string, unknown>;
}

/** A signed-in user acting in their account (the console's changes). */
export interface Actor {
  accountId: number;
  userId: number;
}

/** Records what a signed-in user did to one target, in the transaction of the change. */
export const auditByUser = (
  db: Db,
  actor: Actor,
  targetType: string,
  action: string,
  targetId: number,
  detail?: Record<string, unknown>,
) =>
  recordAudit(db, {
    accountId: actor.accountId,
    actorUserId: actor.userId,
    actorKind: 'user',
    action,
    targetType,
    targetId,
    ...(detail ? { detail } : {}),
  });

/** Largest stored detail: an entry says what changed, it is not a copy of the data. */
const DETAIL_MAX = 8000;

/**
 * Records one action in the account's audit log. Call it with the transaction of the change
 * itself, so that the entry exists exactly when the change does.
 */
export async function recordAudit(db: Db, e: AuditEvent): Promise<void> {
  await repo.insertAudit(db, auditRow(e));
}

/** Records many actions at once (one statement a hundred), in the transaction of the changes. */
export async function recordAudits(db: Db, es: readonly AuditEvent[]): Promise<void> {
  await repo.insertAudits(db, es.map(auditRow));
}

function auditRow(e: AuditEvent) {
  let detail = e.detail === undefined ? null : JSON.stringify(e.detail);
  if (detail !== null && detail.length > DETAIL_MAX) {
    detail = JSON.stringify({ truncated: true, keys: Object.keys(e.detail ?? {}).slice(0, 50) });
  }
  return {
    account_id: e.accountId,
    actor_user_id: e.actorUserId,
    actor_kind: e.actorKind,
    action: e.action.slice(0, 100),
    target_type: e.targetType?.slice(0, 100) ?? null,
    target_id: e.targetId === null ? null : String(e.targetId).slice(0, 200),
    detail,
  };
}

export interface AuditEntry {
  id: number;
  created_at: string;
  actor_kind: string;
  actor_user_id: number | null;
  /** The acting user's name and e-mail as they are now; null when unknown (CLI, user gone). */
  actor_name: string | null;
  actor_email: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  detail: Record<string, unknown> | null;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  next_before: number | null;
  total: number;
}

function parseDetail(value: string | null): Record<string, unknown> | null {
  if (!value) return null;
  try {
    const v: unknown = JSON.parse(value);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A page of the account's audit log, newest first. `limit` is clamped to 1..200. */
export async function listAuditEntries(
  db: Db,
  accountId: number,
  opts: { limit?: number; before?: number } = {},
): Promise<AuditPage> {
  const limit = Math.min(200, Math.max(1, Math.trunc(opts.limit ?? 50)));
  const [rows, total] = await Promise.all([
    listAudit(db, accountId, { limit: limit + 1, before: opts.before }),
    repo.countAudit(db, accountId),
  ]);
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  return {
    entries: page.map((r) => ({
      id: Number(r.id),
      created_at: r.created_at,
      actor_kind: r.actor_kind,
      actor_user_id: r.actor_user_id,
      actor_name:
        r.actor_first_name === null ? null : `${r.actor_first_name} ${r.actor_last_name ?? ''}`.trim(),
      actor_email: r.actor_email,
      action: r.action,
      target_type: r.target_type,
      target_id: r.target_id,
      detail: parseDetail(r.detail),
    })),
    next_before: more ? Number(page[page.length - 1]?.id) : null,
    total,
  };
}
