import { fileURLToPath } from 'node:url';

/**
 * `node` arguments that run a TypeScript entry (src/server.ts, src/worker.ts) the way the
 * test processes themselves run: under scripts/ts-loader.mjs, which starts a process in about
 * a quarter less CPU time than tsx. What `npm start` and `npm run worker` do, tsx included, is
 * proved by test/lifecycle.test.ts, which runs them through npm.
 */
export const TS_NODE_ARGS = ['--import', fileURLToPath(new URL('../scripts/ts-loader.mjs', import.meta.url))];
