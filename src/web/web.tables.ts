/** Tables of the sign-in (migration 920). Timestamps are RFC 3339 UTC strings. */
export interface UserPasswordTable {
  user_id: number;
  /** `scrypt$N$r$p$salt$hash` (modules/users/passwords.ts). */
  password_hash: string;
  updated_at: string;
}

export interface UserInviteTable {
  id: import('kysely').Generated<number>;
  user_id: number;
  /** SHA-256 of the link's token: the token itself is only in the link. */
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  created_at: import('kysely').Generated<string>;
}

export interface WebSessionTable {
  /** SHA-256 of the cookie's value. */
  id_hash: string;
  user_id: number;
  account_id: number;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  ip: string | null;
  user_agent: string | null;
}

export interface SigninFailureTable {
  id: import('kysely').Generated<number>;
  email: string;
  ip: string;
  at: string;
}

declare module '../db/schema.js' {
  interface Database {
    user_passwords: UserPasswordTable;
    user_invites: UserInviteTable;
    web_sessions: WebSessionTable;
    signin_failures: SigninFailureTable;
  }
}
