import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { DbHandle } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { createTestDb, DB_KINDS } from './helpers.js';

/**
 * Migrations are frozen (issue 17 item 4): once a migration has landed, databases have run it,
 * and changing its file would make a fresh database differ from one migrated before the change.
 * A new migration is a new file whose name sorts after every landed one; after it lands, its
 * hash is appended here (`sha256sum src/db/migrations/<file>`). A failing hash means a landed
 * migration was edited: undo the edit and write a new migration instead.
 */
const LANDED: ReadonlyArray<readonly [file: string, sha256: string]> = [
  ['2026_11_22_000_foundation.ts', '3aff642b9bfe9e55411438bdde6d4f6dab73cbb7c5401bb1a1e431b5a237f77e'],
  ['2026_11_22_010_files.ts', '0ffe5c1f393517195b5e318369613f1cfd755bdd0d69f52ede34ba8d6aff5191'],
  ['2026_11_22_100_work.ts', 'a31dfb7277ee3244171df890033ce50515cbbdd3eb3963b42c576a329e554f98'],
  ['2026_11_22_200_contacts.ts', '6fe571fbca3e4f3ec683354528e04a0d5e3a9995283393da8df997da7af4b908'],
  ['2026_11_22_300_webhooks.ts', '3881348e189c2d2765a8d9cda99c19020725cac24d1439e2f575e092ebe506c0'],
  ['2026_11_22_400_invoicing.ts', '9c669c2eedc9d16ea13cca5ff1f2440e4c065274609793857045a2a4acda3842'],
  ['2026_11_22_500_incoming.ts', '3e59891b621f7e6c2f74709451896e7bdafc6459ca995415816883130e584fce'],
  ['2026_11_22_600_list_indexes.ts', 'f9710038fd4a3ed148db422553aec2d9bb6e2bfa778b3efc3ff6d879a3ecbe8f'],
  ['2026_11_22_700_auth_epoch.ts', 'f4c27e0e7fdf05da49b13d7a3616c1599b73498c4370d567e27821bbfaf4fa40'],
  ['2026_11_22_710_rate_limits.ts', '21ce4311a4227ee480e26594b7fe5690a2650e1f867230a1f3e3e95ad5780cbb'],
  ['2026_11_22_720_fold.ts', '8fe4e7c93c49a45efb4b5be9a81d2c2b9f12094fefe30cce426731933013a57e'],
  [
    '2026_11_22_820_idempotency_leases.ts',
    'b1b5baf367e5dfa4f047f39914b13e0b4cc1c4eaecf9db0780cdae6f84581274',
  ],
  [
    '2026_11_22_900_incoming_extraction.ts',
    '7245473cbf0771c8b77460d91f81fc6b4c0fc049a0440b2d46c925381db1df81',
  ],
  ['2026_11_22_910_extraction_jobs.ts', 'c460d461dbbae5099ed965eba7e51ad7e0f2838e70063cb2a28cec97d96494e1'],
  ['2026_11_22_920_signin.ts', '16d2709a76cb3a60856ce50e59250114a6b0095c754f85106bdfd5166f116103'],
  ['2026_11_22_930_oauth_server.ts', '9b063fedc66c94561979d656553da4ee20896c434d5a9220ac1f6a985d6a4459'],
  [
    '2026_11_22_940_invoice_legal_fields.ts',
    '5e0a0d2c5d6cd42043f3579d31b7b0aaf85866997dd954fa5336d7d1d6fddee7',
  ],
  ['2026_11_22_950_payment_ids.ts', 'cee126afcd4c0ecc77e02617508f4c0a082bc93669039ee6dd865739acb130e7'],
  [
    '2026_11_22_951_invoice_deleted_by.ts',
    '5324bb099fc84f2fe9ef8bbe4f6debcdb5c01351f663289f1dbb5cae10d9bd78',
  ],
  ['2026_11_23_100_list_counts.ts', '2f449174713db581948d0a3bfd973f5394957b419e907dd7e18640fd169119fe'],
  ['2026_11_23_200_audit_log.ts', 'fedf7925db6fd77bf75f844ace08f1604796e4f95ccacb7743a1a8fe7a7d7e05'],
  ['2026_11_23_201_account_logos.ts', '5d47fe9df2ec17c1219dc9412f35f433bb1d2d9bf25b6617be6ffefac1f51586'],
  ['2026_11_23_300_change_log.ts', '05d47f9a99edb930882e6ffb881b8fe907f44369463f1361f89e0ed25091c2e7'],
  ['2026_11_24_100_list_count_shards.ts', 'f3d9aaa4b492afdec56e41546a67786b8dab92976d3e361c93c604ba230419f9'],
  [
    '2026_11_28_100_insert_statement_triggers.ts',
    '1eff0e27e61676f76f714002fef9712a9132570c916deaef53461cd26d7be996',
  ],
  [
    '2026_11_29_100_invoice_line_key_and_fanout.ts',
    '7f4347f4d5618f5320a3f93be3b25886f6a51374df42f370ba662a62b1c464a1',
  ],
  [
    '2026_11_29_200_invoice_client_key.ts',
    '732bb21dbdf18093d2ca91960db80ceb462c43d9925d6a2d07edc9ca8de235c9',
  ],
  ['2026_12_07_100_billing.ts', '75839a8c7e89cf433b68f8a8c1c48fe35d80a3fc265d2fc298e3e25264609ad6'],
  ['2026_12_07_400_dunning.ts', '1dd85ce1967edeeb5a18f8ae076d31416c667dcf3984d0b934c610486bfc5e08'],
  ['2026_12_07_500_bank_statements.ts', 'e74af31f6bbfe238e6d7ba340fd985e514ccd86422fd9c532dc684d25600eaa2'],
  ['2026_12_07_510_bank_csv_profiles.ts', '94079153c3d576d4655ffced8f655fd411a50cc16ce8338b8926e1d5c027e671'],
  ['2026_12_07_600_exports.ts', '76fe72767c17290333b15811121dc8cc4261bb7abf2738c56b12618f45393f03'],
  [
    '2026_12_07_700_oauth_store_hashed.ts',
    '60d1f46ef6a8003165c530a8a4799419ace98ae99a496d7a7e9b5c01b6ea13be',
  ],
  ['2026_12_07_800_mail_outbox.ts', 'b8344212f57614a8efc0d5d2e3dff47007a271fa64b01fd41a23637ec6b07771'],
  ['2026_12_07_800_mailbox_intake.ts', '2f598906a3074d10b7467400d12ac8e75b0303cd34fe73fa2556135c79b3f944'],
  ['2026_12_07_910_billing_indexes.ts', 'fe2b3a40973dfbb09db0fa3e95966f4b8654e68bbc00b87b6880c084bc52156d'],
  ['2026_12_07_920_dunning_jobs.ts', '5810bc6633f26897d2185edad63582e0f3ec3ba5085f816bfa961743c2fc2452'],
  ['2026_12_07_930_mail_templates.ts', 'd9dc5beac5d746809e68412a511cbb654b9d16efa1279aff0b66721ce024d156'],
  ['2026_12_07_950_backfill.ts', '6c316e293261af2f28e62792a53dbb0b1eace21bd2a63a5bff5fa74ad775aec8'],
  ['2026_12_07_975_scheduled_jobs.ts', '3bbcde049d701e1b7c67c86294719572a9c007de8893d4f5c774a370621a68d2'],
  ['2026_12_07_980_recurring_auto.ts', 'bdad32d60a4d328bffeb26051045aeb3d1c45fcc24b06b98bada76773e90f039'],
  [
    '2026_12_07_984_dunning_credited_index.ts',
    '2b7ca09774b80a484a328b4bae12767f3c33f183c42165ef9739dc0c7bab81f3',
  ],
  ['2026_12_07_986_sepa.ts', '1ecde6c7aa3305ef43650596725ddf8d922bd8ef2b1b51e3c6853505a6da5a0e'],
  [
    '2026_12_07_992_change_feed_window.ts',
    '90b67fcc55804bcf6aa9135509fc59d3cdcad730fd5b797f75a51aaf20d4c659',
  ],
  ['2026_12_07_994_kept_documents.ts', '8c4731faef1e9c4fb86e824d1e4feb2ba062d7ef7bf6da276fa83795f2e2df3e'],
  ['2026_12_07_995_table_versions.ts', 'cb853bd0dd731fd522feea499fff3e0e08fc9ef38a15006f7c3741d1030f3cdc'],
  ['2026_12_07_997_search_docs.ts', '0143d3fdf7663c064b6fd584b35f980c7485caf50a20c3efc72e605a99c14d09'],
  [
    '2026_12_07_9982_bank_return_reason.ts',
    'b7b5e70923f21fcf164227d6a0c7903c5f4fadd14cf9515520de95b07f105c9a',
  ],
  [
    '2026_12_07_9990_list_substring_index.ts',
    '2a9582fa030cf28543351778f470fc2e4ef84807657273f165b16fb743f2f682',
  ],
  [
    '2026_12_07_9991_clients_shortcode_sort.ts',
    '28fcc4187b9c4eccadcec8a04e5fffb99e48af519e69a1c4fbceca5bed186a11',
  ],
  [
    '2026_12_07_9992_active_sort_indexes.ts',
    '8e59bb769e463028d994a2559851fa7dbfce034238bf86057c3aa689e36f7417',
  ],
  [
    '2026_12_07_9994_sepa_mandate_amendments.ts',
    '4909b74ddc778cd84976070e8e1c3ceda4ea3c009ce75a37002f44da24817fcd',
  ],
];

const dir = new URL('../src/db/migrations/', import.meta.url);
const files = readdirSync(dir)
  .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
  .sort();
// Line endings as committed (LF): a checkout that turns them into CRLF changes no migration.
const sha256 = (file: string): string =>
  createHash('sha256')
    .update(readFileSync(new URL(file, dir), 'utf8').replace(/\r\n/g, '\n'))
    .digest('hex');

describe('migrations are frozen', () => {
  it('every landed migration is still there, unchanged', () => {
    const changed = LANDED.filter(([file, hash]) => !files.includes(file) || sha256(file) !== hash).map(
      ([file]) => file,
    );
    assert.deepEqual(changed, [], 'landed migrations were edited or removed: write a new migration instead');
  });

  it('the list is in name order, so "the last landed one" is its last entry', () => {
    const names = LANDED.map(([file]) => file);
    assert.deepEqual(names, [...names].sort());
  });

  it('a new migration sorts after the last landed one (they apply in name order)', () => {
    const last = LANDED.at(-1)?.[0] ?? '';
    const landed = new Set(LANDED.map(([file]) => file));
    const early = files.filter((f) => !landed.has(f) && f <= last);
    assert.deepEqual(early, [], `new migrations must be named after ${last}`);
  });

  it('every migration is self-contained: it imports packages only, no project file', () => {
    const importsOfProject = files.filter((f) =>
      /(?:from|import)\s*\(?\s*['"]\.{1,2}\//.test(readFileSync(new URL(f, dir), 'utf8')),
    );
    assert.deepEqual(importsOfProject, []);
  });
});

for (const kind of DB_KINDS) {
  describe(`migrations apply in name order only [${kind}]`, () => {
    let handle: DbHandle;
    before(async () => {
      handle = await createTestDb(kind);
      await migrateToLatest(handle.db);
    });
    after(() => handle.destroy());

    it('refuses a pending migration that sorts before one already applied', async () => {
      // Make 600 pending again (its index dropped, its record gone) behind later applied ones:
      // run out of order it would succeed, so only the order check can refuse it.
      const name = '2026_11_22_600_list_indexes';
      const m = await import(new URL(`${name}.ts`, dir).href);
      await m.down(handle.db);
      await sql`delete from kysely_migration where name = ${name}`.execute(handle.db);
      await assert.rejects(migrateToLatest(handle.db), /New migrations must always have a name that comes/);
    });
  });
}
