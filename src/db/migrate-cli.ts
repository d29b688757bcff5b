import { loadConfig } from '../config.js';
import { failStartup, startupStep } from '../startup.js';
import { createDb } from './index.js';
import { migrateToLatest } from './migrator.js';

try {
  const handle = await startupStep('opening the database', () => createDb(loadConfig().db));
  try {
    await startupStep('migrating the database', () => migrateToLatest(handle.db));
    console.log('migrations applied');
  } finally {
    await handle.destroy();
  }
} catch (err) {
  failStartup(err);
}
