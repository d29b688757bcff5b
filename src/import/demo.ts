import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Db } from '../db/index.js';
import { firstAccountId } from '../modules/account/account.service.js';
import { setPassword } from '../modules/users/passwords.service.js';
import { firstAdminOf } from './demo.read-model.js';
import { importData } from './index.js';

export const DEMO_FILE = new URL('../../seed/demo.json', import.meta.url);

const toStderr = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Loads the demo data through the import, once: only into a database with no account. Its
 * first admin gets a random password, announced once (stderr): a password written in the
 * README would open every installation that kept the demo data.
 */
export async function seedDemoIfEmpty(
  db: Db,
  announce: (line: string) => void = toStderr,
): Promise<number | undefined> {
  if ((await firstAccountId(db)) !== undefined) return undefined;
  const doc = JSON.parse(await readFile(DEMO_FILE, 'utf8'));
  const result = await importData(db, doc);
  const admin = await firstAdminOf(db, result.account_id);
  if (admin) {
    const password = randomBytes(12).toString('base64url');
    await setPassword(db, admin.id, password);
    announce(
      `demo data loaded: sign in at /signin as ${admin.email} with the password ${password} ` +
        `(shown this once; set another with: npm run --silent cli -- user set-password --email ${admin.email})`,
    );
  }
  return result.account_id;
}
