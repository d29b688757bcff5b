import type { Generated } from 'kysely';

/** One entry of an account's audit log (migration 2026_11_23_200). */
export interface AuditLogTable {
  id: Generated<number>;
  account_id: number;
  /** The user who acted (the session's user or the token's); null for the CLI without one. */
  actor_user_id: number | null;
  actor_kind: string;
  /** `<area>.<verb>`, e.g. `account.profile_update`, `user.invite`, `webhook.rotate_secret`. */
  action: string;
  target_type: string | null;
  target_id: string | null;
  /** JSON object: what changed (never secrets). */
  detail: string | null;
  created_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    audit_log: AuditLogTable;
  }
}
