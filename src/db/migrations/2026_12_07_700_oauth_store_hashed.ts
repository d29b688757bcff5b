import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// OAuth codes, refresh and access tokens in `oauth_store` are keyed by the SHA-256 (hex) of
// their value from now on, and their payload no longer holds the value (`jti`): a row read
// from the database cannot be presented. Rows stored before are rewritten so that they keep
// working for whoever holds the value.
const MODELS = ['AccessToken', 'ClientCredentials', 'RefreshToken', 'AuthorizationCode'];

const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');

export async function up(db: AnyDb): Promise<void> {
  const rows = (await db
    .selectFrom('oauth_store')
    .select(['model', 'id', 'payload'])
    .where('model', 'in', MODELS)
    .execute()) as { model: string; id: string; payload: string }[];
  for (const row of rows) {
    const { jti: _value, ...payload } = JSON.parse(row.payload) as Record<string, unknown>;
    await db
      .updateTable('oauth_store')
      .set({ id: sha256(row.id), payload: JSON.stringify(payload) })
      .where('model', '=', row.model)
      .where('id', '=', row.id)
      .execute();
  }
}

export async function down(): Promise<void> {
  // The values are gone: the rows cannot be keyed by them again.
}
