import { loadConfig } from './config.js';
import { failStartup } from './startup.js';

/**
 * `npm start`. The configuration is read before the application's modules load (a second or
 * two): a bad value is reported at once. Every start-up failure is one line and exit code 1
 * (startup.ts).
 */
try {
  const config = loadConfig();
  const { run } = await import('./serve.js');
  await run(config);
} catch (err) {
  failStartup(err);
}
