import { loadConfig } from '../config.js';
import { createDb } from './index.js';
import { migrateToLatest } from './migrator.js';

const handle = createDb(loadConfig().db);
try {
  await migrateToLatest(handle.db);
  console.log('migrations applied');
} finally {
  await handle.destroy();
}
