import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/app.js';
import { runCli } from '../src/cli/index.js';
import { createDb, type DbHandle } from '../src/db/index.js';
import { testConfig } from './helpers.js';
import { Browser } from './web-client.js';

/** Runs the CLI in this process against its own SQLite file, with `input` on stdin. */
async function cli(dbFile: string, args: string[], input = '') {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { ...process.env, DATABASE_URL: dbFile, PUBLIC_URL: 'https://pm.example' },
    stdin: Readable.from([Buffer.from(input)]),
  });
  return { code, stdout, stderr };
}

describe('CLI: user set-password and user invite', () => {
  let dir: string;
  let dbFile: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-users-'));
    dbFile = join(dir, 'cli.sqlite');
    const file = join(dir, 'users.json');
    await writeFile(
      file,
      JSON.stringify({
        account: { name: 'CLI Co' },
        users: [{ email: 'boss@cli.example', first_name: 'B', last_name: 'Oss', role: 'admin' }],
      }),
    );
    assert.equal((await cli(dbFile, ['import', file])).code, 0);
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  /** Signs in on an app over the CLI's database file. */
  async function signIn(email: string, password: string): Promise<number> {
    const handle: DbHandle = createDb({ kind: 'sqlite', file: dbFile });
    const app = await buildApp(testConfig(), { db: handle, logger: false });
    try {
      return (await new Browser(app).signIn(email, password)).status;
    } finally {
      await app.close();
      await handle.destroy();
    }
  }

  it('set-password reads the password from stdin, never from the command line, and prints no secret', async () => {
    const set = await cli(
      dbFile,
      ['user', 'set-password', '--email', 'BOSS@cli.example'],
      'a long enough secret\n',
    );
    assert.equal(set.code, 0, set.stderr);
    assert.match(
      set.stdout,
      /^password set for user \d+ \(boss@cli\.example, account \d+\); their sessions ended\n$/,
    );
    assert.doesNotMatch(set.stdout + set.stderr, /a long enough secret/);
    assert.equal(await signIn('boss@cli.example', 'a long enough secret'), 303);

    const short = await cli(dbFile, ['user', 'set-password', '--email', 'boss@cli.example'], 'short\n');
    assert.equal(short.code, 1);
    assert.match(short.stderr, /password: must be at least 10 characters/);
    const nobody = await cli(
      dbFile,
      ['user', 'set-password', '--email', 'nobody@cli.example'],
      'a long enough secret',
    );
    assert.equal(nobody.code, 1);
    assert.match(nobody.stderr, /No user with the e-mail nobody@cli\.example/);
    const noEmail = await cli(dbFile, ['user', 'set-password']);
    assert.equal(noEmail.code, 2);
    assert.match(noEmail.stderr, /--email is required/);
  });

  it('invite creates the user when needed and prints a one-time link under PUBLIC_URL', async () => {
    const missingNames = await cli(dbFile, ['user', 'invite', '--email', 'new@cli.example']);
    assert.equal(missingNames.code, 1);
    assert.match(missingNames.stderr, /give --first-name and --last-name/);
    const made = await cli(dbFile, [
      'user',
      'invite',
      '--email',
      'new@cli.example',
      '--first-name',
      'Nia',
      '--last-name',
      'New',
      '--role',
      'admin',
      '--json',
    ]);
    assert.equal(made.code, 0, made.stderr);
    const inv = JSON.parse(made.stdout);
    assert.equal(inv.created_user, true);
    assert.match(inv.url, /^https:\/\/pm\.example\/invite\/[\w-]{43}$/);
    const hours = (Date.parse(inv.expires_at) - Date.now()) / 3600_000;
    assert.ok(hours > 71.9 && hours <= 72, `${hours} h`);
    const badRole = await cli(dbFile, ['user', 'invite', '--email', 'new@cli.example', '--role', 'owner']);
    assert.equal(badRole.code, 2);
    const again = await cli(dbFile, ['user', 'invite', '--email', 'new@cli.example']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(
      again.stdout,
      /^invited user \d+ \(new@cli\.example, account \d+\)\nlink \(once, until .+\): https:\/\/pm\.example\/invite\/[\w-]{43}\n$/,
    );
  });
});
