// A reporter for scripts/test-run.mjs: seconds per test file (the suite it wraps each file
// in, or the file's own entry when files run alone), as JSON { "test/x.test.ts": 3.2 }, so
// that the next run can pack files into groups of equal length.
import { isAbsolute, relative } from 'node:path';

export default async function* durations(source) {
  const root = process.env.TEST_RUN_ROOT ?? process.cwd();
  const seconds = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, details } = event.data;
    if (typeof name !== 'string' || !name.endsWith('.test.ts')) continue;
    const file = isAbsolute(name) ? relative(root, name) : name;
    seconds[file] = Math.round((details?.duration_ms ?? 0) / 100) / 10;
  }
  yield `${JSON.stringify(seconds)}\n`;
}
