import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/app.js';
import { runCli } from '../src/cli/index.js';
import { loadConfig } from '../src/config.js';
import { Api } from './helpers.js';

/** Runs the CLI in this process (as `npm run cli` would) against its own SQLite file. */
async function cli(dbFile: string, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { ...process.env, DATABASE_URL: dbFile },
  });
  return { code, stdout, stderr };
}

describe('CLI', () => {
  let dir: string;
  let dbFile: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-test-'));
    dbFile = join(dir, 'cli.sqlite');
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('imports a file, and a bad file imports nothing with a clear error', async () => {
    const good = join(dir, 'good.json');
    await writeFile(
      good,
      JSON.stringify({
        account: { name: 'CLI Co' },
        users: [{ key: 'boss', email: 'Boss@cli.example', first_name: 'B', last_name: 'Oss', role: 'admin' }],
        user_groups: [{ name: 'All', members: ['boss'] }],
        clients: [{ name: 'First client', shortcode: 'FIRST' }],
      }),
    );
    const ok = await cli(dbFile, 'import', good);
    assert.equal(ok.code, 0, ok.stderr);
    const result = JSON.parse(ok.stdout);
    assert.deepEqual(result.created, { users: 1, user_groups: 1, clients: 1 });

    const bad = join(dir, 'bad.json');
    await writeFile(
      bad,
      JSON.stringify({
        users: [{ email: 'x@y.example', first_name: 'X', last_name: 'Y' }],
        user_groups: [{ name: 'G', members: ['ghost'] }],
      }),
    );
    const refused = await cli(dbFile, 'import', bad, '--account', String(result.account_id));
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /user_groups\.0\.members: no users with key "ghost"/);

    const invalid = join(dir, 'invalid.json');
    await writeFile(invalid, JSON.stringify({ account: { name: 'X' }, clients: [{ nam: 'typo' }] }));
    const refused2 = await cli(dbFile, 'import', invalid);
    assert.equal(refused2.code, 1);
    assert.match(refused2.stderr, /clients\.0/);

    const notJson = join(dir, 'broken.json');
    await writeFile(notJson, '{ nope');
    assert.equal((await cli(dbFile, 'import', notJson)).code, 2);
  });

  it('creates, lists and revokes integrations; the token works against the server', async () => {
    const created = await cli(
      dbFile,
      'integration',
      'create',
      '--name',
      'Zapier',
      '--scopes',
      'client:read user:read',
      '--json',
    );
    assert.equal(created.code, 0, created.stderr);
    const integration = JSON.parse(created.stdout);
    for (const k of ['access_token', 'id', 'client_id', 'client_secret']) assert.ok(integration[k], k);
    assert.deepEqual(integration.scopes, ['client:read', 'user:read']);

    const app = await buildApp(loadConfig({ DATABASE_URL: dbFile, LOG_LEVEL: 'silent' }), { logger: false });
    try {
      const api = new Api(app, integration.access_token);
      const clients = await api.get('/clients/full');
      assert.equal(clients.status, 200);
      assert.deepEqual(
        clients.body.data.map((c: { shortcode: string }) => c.shortcode),
        ['FIRST'],
      );
      const me = await api.get('/whoami');
      assert.equal(me.body.data.email, 'boss@cli.example');

      const list = await cli(dbFile, 'integration', 'list', '--json');
      assert.ok(JSON.parse(list.stdout).some((i: { id: number }) => i.id === integration.id));
      const revoked = await cli(dbFile, 'integration', 'revoke', String(integration.id));
      assert.equal(revoked.code, 0);
      assert.equal((await api.get('/whoami')).status, 401);
    } finally {
      await app.close();
    }
  });

  it('refuses bad input with a non-zero exit and a message', async () => {
    const unknownScope = await cli(
      dbFile,
      'integration',
      'create',
      '--name',
      'x',
      '--scopes',
      'client:read nope:nope',
    );
    assert.equal(unknownScope.code, 1);
    assert.match(unknownScope.stderr, /Unknown scope\(s\): nope:nope/);
    const noName = await cli(dbFile, 'integration', 'create', '--scopes', '');
    assert.equal(noName.code, 2);
    assert.match(noName.stderr, /--name is required/);
    const unknownUser = await cli(
      dbFile,
      'integration',
      'create',
      '--name',
      'x',
      '--scopes',
      '',
      '--user',
      '9999',
    );
    assert.equal(unknownUser.code, 1);
    assert.equal((await cli(dbFile, 'frobnicate')).code, 2);
    assert.equal((await cli(dbFile, 'integration', 'revoke', '9999')).code, 1);
  });
});
