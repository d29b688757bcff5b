import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../src/cli/index.js';
import { createDb } from '../src/db/index.js';

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

describe('CLI: integrations as OAuth clients', () => {
  let dir: string;
  let dbFile: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-oauth-'));
    dbFile = join(dir, 'cli.sqlite');
    const file = join(dir, 'seed.json');
    await writeFile(
      file,
      JSON.stringify({
        account: { name: 'CLI OAuth Co' },
        users: [{ email: 'boss@cli.example', first_name: 'B', last_name: 'Oss', role: 'admin' }],
      }),
    );
    assert.equal((await cli(dbFile, 'import', file)).code, 0);
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('creates a public client with redirect URIs and updates it; bad URIs are refused', async () => {
    const created = await cli(
      dbFile,
      ...['integration', 'create', '--name', 'Mobile', '--scopes', 'client:read', '--public'],
      ...['--redirect-uri', 'com.example.app:/cb', '--redirect-uri', 'http://127.0.0.1:8765/cb', '--json'],
    );
    assert.equal(created.code, 0, created.stderr);
    const integration = JSON.parse(created.stdout);
    assert.equal(integration.client_type, 'public');
    assert.equal(integration.client_secret, null);
    assert.deepEqual(integration.redirect_uris, ['com.example.app:/cb', 'http://127.0.0.1:8765/cb']);

    const updated = await cli(
      dbFile,
      ...['integration', 'update', String(integration.id), '--confidential', '--display-name', 'Mobile App'],
      ...['--homepage', 'https://mobile.example/', '--redirect-uri', 'https://mobile.example/cb'],
    );
    assert.equal(updated.code, 0, updated.stderr);
    const { db, destroy } = createDb({ kind: 'sqlite', file: dbFile });
    try {
      const row = await db
        .selectFrom('integrations')
        .selectAll()
        .where('id', '=', integration.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.client_type, 'confidential');
      assert.equal(row.display_name, 'Mobile App');
      assert.equal(row.homepage, 'https://mobile.example/');
      assert.equal(row.redirect_uris, 'https://mobile.example/cb');
    } finally {
      await destroy();
    }

    for (const uri of ['http://app.example/cb', 'https://app.example/cb#frag', 'not a uri']) {
      const bad = await cli(dbFile, 'integration', 'update', String(integration.id), '--redirect-uri', uri);
      assert.equal(bad.code, 1, uri);
      assert.match(bad.stderr, /redirect URI/);
    }
    const noUri = await cli(dbFile, 'integration', 'create', '--name', 'X', '--scopes', '', '--public');
    assert.equal(noUri.code, 1);
    assert.match(noUri.stderr, /public client needs at least one redirect URI/);
  });
});
