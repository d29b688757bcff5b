// The service as `npm start` runs it (minus the demo seed), on the database in DATABASE_URL.
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const app = await buildApp(
  loadConfig({ ...process.env, LOG_LEVEL: 'warn', RUN_WORKER: 'false', RATE_LIMIT_PER_MINUTE: '100000000' }),
);
await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();
console.log(`LISTENING ${typeof addr === 'object' && addr ? addr.port : 0}`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
