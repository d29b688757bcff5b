import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// The OAuth authorization server (modules/oauth, oidc-provider):
// - integrations become OAuth clients: redirect URIs (exact match), confidential or public
//   (a public client has no secret and must use PKCE), a name shown on the consent page and
//   an optional homepage;
// - `oauth_store` keeps what oidc-provider stores (codes, refresh tokens, grants, its sessions
//   and interactions) as one JSON payload per (model, id), with the columns it looks them up
//   by. Everything lives in the database, so any process may continue a flow another began;
// - an access token the server issues is also a row of `access_tokens` (its hash), so bearer
//   checks keep their one fast path; it acts as the user who consented (`user_id`, where the
//   integration's own user acts when null) and belongs to its grant (`grant_id`), so revoking
//   the grant revokes it. The auth-epoch triggers of migration 700 already watch that table.
export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const ts = pg ? 'timestamptz' : 'text';

  await db.schema
    .alterTable('integrations')
    .addColumn('redirect_uris', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('integrations')
    .addColumn('client_type', 'text', (c) => c.notNull().defaultTo('confidential'))
    .execute();
  await db.schema.alterTable('integrations').addColumn('display_name', 'text').execute();
  await db.schema.alterTable('integrations').addColumn('homepage', 'text').execute();

  await db.schema
    .alterTable('access_tokens')
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .execute();
  await db.schema.alterTable('access_tokens').addColumn('grant_id', 'text').execute();
  await db.schema.createIndex('access_tokens_grant_idx').on('access_tokens').column('grant_id').execute();

  await db.schema
    .createTable('oauth_store')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid', 'text')
    .addColumn('client_id', 'text')
    .addColumn('user_id', 'integer')
    .addColumn('expires_at', ts)
    .addColumn('consumed_at', ts)
    .addColumn('created_at', ts, (c) =>
      c.notNull().defaultTo(pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
    )
    .addPrimaryKeyConstraint('oauth_store_pk', ['model', 'id'])
    .execute();
  await db.schema.createIndex('oauth_store_grant_idx').on('oauth_store').column('grant_id').execute();
  await db.schema.createIndex('oauth_store_uid_idx').on('oauth_store').column('uid').execute();
  await db.schema
    .createIndex('oauth_store_user_idx')
    .on('oauth_store')
    .columns(['user_id', 'model'])
    .execute();
  await db.schema.createIndex('oauth_store_client_idx').on('oauth_store').column('client_id').execute();
  await db.schema.createIndex('oauth_store_expires_idx').on('oauth_store').column('expires_at').execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('oauth_store').execute();
  await db.schema.dropIndex('access_tokens_grant_idx').execute();
  await db.schema.alterTable('access_tokens').dropColumn('grant_id').execute();
  await db.schema.alterTable('access_tokens').dropColumn('user_id').execute();
  for (const c of ['homepage', 'display_name', 'client_type', 'redirect_uris'])
    await db.schema.alterTable('integrations').dropColumn(c).execute();
}
