// A second process writing clients (list-paging.test.ts): creates, archives and deletes rows
// of one account, each in a transaction, racing another such process.
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';

const [url, account, tag] = process.argv.slice(2);
const handle = createDb(loadConfig({ DATABASE_URL: url! }).db);
try {
  for (let i = 0; i < 40; i++) {
    await handle.db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('clients')
        .values({ account_id: Number(account), name: `race ${tag} ${i}` })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (i % 4 === 0)
        await trx
          .updateTable('clients')
          .set({ archived_at: new Date().toISOString() })
          .where('id', '=', row.id)
          .execute();
      if (i % 10 === 0) await trx.deleteFrom('clients').where('id', '=', row.id).execute();
    });
  }
} finally {
  await handle.destroy();
}
