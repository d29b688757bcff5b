import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium (`.ci/run` installs it): the test fails, never skips, without it. */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Where the browser tests save their screenshots: test-results/screenshots/ (ignored by git),
 * so a test run leaves the working tree clean. `npm run screenshots` points SCREENSHOT_DIR at
 * docs/screenshots/ to refresh the pictures the guides show.
 */
export function screenshotPath(name: string): string {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const dir = resolve(root, process.env.SCREENSHOT_DIR ?? 'test-results/screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

let shared: Promise<Browser> | undefined;
let open = 0;
let idle: NodeJS.Timeout | undefined;

/**
 * One chromium per test process, started when the first page needs it: starting chromium
 * costs about a CPU-second, and the browser test files start several each (a member beside
 * the admin, a phone in German). It is closed a moment after its last context: a test
 * process must end once its files are done, and the next file of the process, if any, starts
 * within that moment.
 */
async function browser(): Promise<Browser> {
  clearTimeout(idle);
  shared ??= chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  return shared;
}

function release(): void {
  if (--open > 0) return;
  idle = setTimeout(() => {
    const closing = shared;
    shared = undefined;
    void closing?.then((b) => b.close());
  }, 1000);
}

/**
 * A browser of its own for a test: a fresh context (cookies, storage, cache: nothing shared
 * with another context) of the process's chromium.
 */
export async function launchBrowser(
  options: { locale?: string; viewport?: { width: number; height: number } } = {},
) {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  open++;
  try {
    const context = await (await browser()).newContext({
      locale: options.locale ?? 'en-GB',
      viewport: options.viewport ?? { width: 900, height: 640 },
    });
    let closed = false;
    return {
      context,
      close: async () => {
        if (closed) return;
        closed = true;
        await context.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}
