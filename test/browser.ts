import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { Db, DbKind } from '../src/db/index.js';
import { setPassword } from '../src/modules/users/passwords.service.js';

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

/** The password the browser tests give the users they sign in as. */
export const PASSWORD = 'correct horse battery staple';

/** Starts the test's app on a free port of 127.0.0.1 for the browser; answers its origin. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  return `http://127.0.0.1:${address.port}`;
}

/** Gives a user `PASSWORD`; answers the e-mail they sign in with. */
export async function withPassword(db: Db, userId: number): Promise<string> {
  await setPassword(db, userId, PASSWORD);
  const row = await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
  return row.email;
}

/**
 * Saves a page's screenshot on the SQLite run only: the pages are the same on both databases.
 * Whole pages unless `fullPage: false`.
 */
export function screenshots(kind: DbKind, options: { fullPage?: boolean } = {}) {
  const fullPage = options.fullPage ?? true;
  return (page: Page, name: string): Promise<unknown> =>
    kind === 'sqlite'
      ? page.screenshot({ path: screenshotPath(name), fullPage })
      : Promise.resolve(undefined);
}

/** Fills in the English sign-in form the page shows and sends it. */
export async function submitSignIn(page: Page, email: string): Promise<void> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs in through `/signin?return_to=…` and waits for the page it returns to. */
export async function signIn(page: Page, base: string, email: string, returnTo: string): Promise<void> {
  await page.goto(`${base}/signin?return_to=${encodeURIComponent(returnTo)}`);
  await submitSignIn(page, email);
  await page.waitForURL(`${base}${returnTo}`);
}

/**
 * Opens `path` on a phone in German (390×760) with the cookies of `signedIn`'s session, runs
 * `fn` on that page and closes the phone.
 */
export async function onGermanPhone(
  signedIn: Awaited<ReturnType<typeof launchBrowser>>,
  base: string,
  path: string,
  fn: (page: Page) => Promise<void>,
): Promise<void> {
  const phone = await launchBrowser({ locale: 'de-DE', viewport: { width: 390, height: 760 } });
  try {
    await phone.context.addCookies(await signedIn.context.cookies(base));
    const page = await phone.context.newPage();
    await page.goto(`${base}${path}`);
    await fn(page);
  } finally {
    await phone.close();
  }
}

/** Nothing on the page is wider than the screen. */
export async function assertFitsScreen(page: Page): Promise<void> {
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
}

/**
 * Opens `path` of the app, which shows the sign-in form (a page that needs a session sends the
 * visitor there), signs in and waits until the form has sent the browser on.
 */
export async function openSignedIn(page: Page, base: string, path: string, email: string): Promise<void> {
  await page.goto(`${base}${path}`);
  await submitSignIn(page, email);
  await page.waitForURL((url) => url.pathname !== '/signin');
}
