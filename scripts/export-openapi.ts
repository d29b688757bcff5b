// Writes the generated OpenAPI document to a file (default: openapi.json), for linting and
// for publishing alongside a release.
import { writeFile } from 'node:fs/promises';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const out = process.argv[2] ?? 'openapi.json';
const app = await buildApp(
  loadConfig({ DATABASE_URL: ':memory:', LOG_LEVEL: 'silent', RUN_WORKER: 'false' }),
  { logger: false },
);
await app.ready();
await writeFile(out, `${JSON.stringify(app.swagger(), null, 2)}\n`);
await app.close();
console.log(`wrote ${out}`);
