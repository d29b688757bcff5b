import { readFile } from 'node:fs/promises';
import type { Db } from '../db/index.js';
import { importData } from './index.js';

export const DEMO_FILE = new URL('../../seed/demo.json', import.meta.url);

/** Loads the demo data through the import, once: only into a database with no account. */
export async function seedDemoIfEmpty(db: Db): Promise<number | undefined> {
  const any = await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
  if (any) return undefined;
  const doc = JSON.parse(await readFile(DEMO_FILE, 'utf8'));
  const result = await importData(db, doc);
  return result.account_id;
}
