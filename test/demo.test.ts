import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { seedDemoIfEmpty } from '../src/import/demo.js';
import { createTestDb, DB_KINDS } from './helpers.js';

for (const kind of DB_KINDS) {
  describe(`demo data [${kind}]`, () => {
    let handle: DbHandle;
    before(async () => {
      handle = await createTestDb(kind);
      await migrateToLatest(handle.db);
    });
    after(async () => handle.destroy());

    it('loads through the import once, into an empty database only', async () => {
      const accountId = await seedDemoIfEmpty(handle.db);
      assert.ok(accountId);
      const users = await handle.db
        .selectFrom('users')
        .select('id')
        .where('account_id', '=', accountId)
        .execute();
      assert.ok(users.length >= 2);
      assert.equal(await seedDemoIfEmpty(handle.db), undefined);
      const accounts = await handle.db.selectFrom('accounts').select('id').execute();
      assert.equal(accounts.length, 1);
    });
  });
}
