/**
 * Preloaded (`--import`) into the server processes test/server.test.ts starts, and inherited
 * by the processes a supervisor forks: their rate-limit clock stands still at RATE_CLOCK_MS,
 * so every process counts in the same window however long the test takes, instead of the
 * test waiting for a fresh window on the wall clock (as test/rate-limit.test.ts does in
 * process).
 */
import { rateLimitClock } from '../src/plugins/rate-limit.js';

const at = Number(process.env.RATE_CLOCK_MS);
if (!Number.isSafeInteger(at) || at <= 0) throw new Error('RATE_CLOCK_MS must be a time in ms');
rateLimitClock.now = () => at;
