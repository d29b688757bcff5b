import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { hashToken } from '../src/plugins/auth.js';
const h = createDb({ kind: 'sqlite', file: ':memory:' });
await migrateToLatest(h.db);
const { account_id } = await importData(h.db, { account: { name: 'B' }, users: [{ email: 'a@b.example', first_name: 'a', last_name: 'b', role: 'admin' }], clients: [{ name: 'x' }] });
const { access_token } = await createIntegration(h.db, { name: 'b', scopes: ['client:read'], accountId: account_id });
const hash = hashToken(access_token);
const q = () => h.db.selectFrom('access_tokens as t').innerJoin('integrations as i', 'i.id', 't.integration_id').innerJoin('users as u', 'u.id', 'i.user_id')
  .select(['t.id', 't.scopes', 't.expires_at', 't.revoked_at', 'i.id as integration_id', 'i.account_id', 'i.user_id', 'i.revoked_at as integration_revoked_at', 'u.active'])
  .where('t.token_hash', '=', hash).executeTakeFirst();
for (let i = 0; i < 2000; i++) await q();
let t = performance.now(); for (let i = 0; i < 20000; i++) await q(); console.log('kysely auth query', ((performance.now() - t) / 20).toFixed(1), 'us');
const compiled = h.db.selectFrom('access_tokens as t').innerJoin('integrations as i', 'i.id', 't.integration_id').innerJoin('users as u', 'u.id', 'i.user_id')
  .select(['t.id', 't.scopes']).where('t.token_hash', '=', hash).compile();
t = performance.now(); for (let i = 0; i < 20000; i++) await h.db.executeQuery(compiled); console.log('precompiled', ((performance.now() - t) / 20).toFixed(1), 'us');
t = performance.now(); for (let i = 0; i < 20000; i++) hashToken(access_token); console.log('sha256', ((performance.now() - t) / 20).toFixed(1), 'us');
const c = () => h.db.selectFrom('clients').selectAll().where('account_id', '=', account_id).where('id', '=', 1).executeTakeFirst();
t = performance.now(); for (let i = 0; i < 20000; i++) await c(); console.log('client by id', ((performance.now() - t) / 20).toFixed(1), 'us');
