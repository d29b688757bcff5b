import { loadConfig } from '../config.js';
import { failStartup, startupStep } from '../startup.js';
import { createDatabaseIfMissing } from './create-database.js';
import { createDb } from './index.js';
import { migrateToLatest } from './migrator.js';

try {
  const config = loadConfig();
  const created = await startupStep('opening the database', () => createDatabaseIfMissing(config.db));
  if (created) console.error(created);
  const handle = await startupStep('opening the database', () => createDb(config.db));
  try {
    await startupStep('migrating the database', () => migrateToLatest(handle.db));
    console.log('migrations applied');
  } finally {
    await handle.destroy();
  }
} catch (err) {
  failStartup(err);
}
