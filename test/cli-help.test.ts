import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { buildApp } from '../src/app.js';
import { COMMANDS } from '../src/cli/commands.js';
import { runCli } from '../src/cli/index.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { ALL_SCOPES, describeScope, USER_PROFILE_SCOPES } from '../src/shared/scopes.js';
import { Api } from './helpers.js';

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

/** The words of a shell line, with '…' and "…" quoting (enough for the README's lines). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

describe('CLI: help, usage errors and scopes', () => {
  let dir: string;
  let dbFile: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-help-'));
    dbFile = join(dir, 'cli.sqlite');
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('top-level help lists every command; without a command the same on stderr, exit 2', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const res = await cli(dbFile, flag);
      assert.equal(res.code, 0);
      for (const c of COMMANDS) assert.ok(res.stdout.includes(`  ${c.name} `), c.name);
      assert.match(res.stdout, /^Usage: npm run --silent cli -- <command>/);
    }
    const bare = await cli(dbFile);
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /^Usage: /);
  });

  it('every command has --help (and `help CMD`): its usage line, exit 0, nothing run', async () => {
    for (const c of COMMANDS) {
      const res = await cli(dbFile, ...c.name.split(' '), '--help');
      assert.equal(res.code, 0, c.name);
      assert.ok(res.stdout.startsWith(`usage: npm run --silent cli -- ${c.name}`), res.stdout);
      assert.ok(res.stdout.includes(c.summary));
      assert.equal((await cli(dbFile, 'help', ...c.name.split(' '))).stdout, res.stdout);
    }
    for (const group of [
      ['integration', '--help'],
      ['help', 'user'],
      ['account-profile', '-h'],
    ]) {
      const res = await cli(dbFile, ...group);
      assert.equal(res.code, 0, group.join(' '));
      assert.match(res.stdout, /^ {2}usage: npm run --silent cli -- (integration|user|account-profile) /);
    }
    const bare = await cli(dbFile, 'integration');
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /^error: integration needs a subcommand\n {2}usage: .* integration create /);
    const restore = await cli(dbFile, 'restore', '--help');
    assert.match(restore.stdout, /--force/);
  });

  it('usage errors exit 2 with the usage line on stderr: unknown command, flag, missing or bad argument', async () => {
    const cases: Array<[string[], RegExp, RegExp]> = [
      [['frobnicate'], /unknown command: frobnicate/, /usage: npm run --silent cli -- <command>/],
      [['integration', 'frob'], /unknown command: integration frob/, /integration create --name NAME/],
      [['integration', 'create', '--nmae', 'x'], /Unknown option '--nmae'/, /usage: .* integration create /],
      [['integration', 'create', '--scopes', ''], /--name is required/, /usage: .* integration create /],
      [['integration', 'create', '--name', 'x'], /--scopes is required/, /usage: .* integration create /],
      [['integration', 'revoke'], /needs an integration ID/, /usage: .* integration revoke ID/],
      [['integration', 'revoke', 'abc'], /ID must be a positive integer/, /integration revoke ID/],
      [['integration', 'list', '--account'], /--account/, /integration list/],
      [['import'], /import needs a FILE/, /usage: .* import FILE\.json/],
      [['user', 'invite', '--email', 'a@b.example', '--role', 'owner'], /--role must be/, /user invite/],
      [['backup'], /backup needs a FILE/, /usage: .* backup FILE/],
      [['account-profile', 'set'], /at least one KEY=VALUE/, /account-profile set/],
      [['account-profile', 'set', 'colour=red'], /not a field of the profile: colour/, /account-profile set/],
    ];
    for (const [args, message, usage] of cases) {
      const res = await cli(dbFile, ...args);
      assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stderr, message);
      assert.match(res.stderr, usage);
      assert.equal(res.stdout, '');
    }
  });

  it('scopes lists every scope with its meaning; --json too', async () => {
    const res = await cli(dbFile, 'scopes');
    assert.equal(res.code, 0);
    for (const s of [...ALL_SCOPES, ...USER_PROFILE_SCOPES]) {
      const line = res.stdout.split('\n').find((l) => l.split(/\s+/)[0] === s);
      assert.equal(line?.replace(/^\S+\s+/, ''), describeScope(s), s);
    }
    const json = JSON.parse((await cli(dbFile, 'scopes', '--json')).stdout);
    assert.equal(json.length, ALL_SCOPES.length + USER_PROFILE_SCOPES.length);
    assert.deepEqual(json[0], { scope: 'user:read', meaning: describeScope('user:read') });
  });

  it('the README’s first token (--scopes all) does the README’s first tour on the demo data', async () => {
    const demo = await cli(dbFile, 'import', 'seed/demo.json');
    assert.equal(demo.code, 0, demo.stderr);
    const readme = await readFile('README.md', 'utf8');
    const quick = readme.slice(readme.indexOf('## Five-minute tour'), readme.indexOf('## Configuration'));
    const lines = quick.split('\n');
    const create = lines.find((l) => l.startsWith('npm run --silent cli -- integration create'))!;
    const made = await cli(dbFile, ...shellWords(create).slice(5));
    assert.equal(made.code, 0, made.stderr);
    const integration = JSON.parse(made.stdout);
    assert.deepEqual(integration.scopes, [...ALL_SCOPES]);
    const curls = lines.filter((l) => l.startsWith('curl '));
    assert.ok(curls.length >= 3);
    const app = await buildApp(loadConfig({ DATABASE_URL: dbFile, LOG_LEVEL: 'silent' }), { logger: false });
    try {
      const api = new Api(app, integration.access_token);
      for (const line of curls) {
        const words = shellWords(line);
        const url = new URL(words.find((w) => w.startsWith('http://'))!);
        const body = words.includes('-d') ? JSON.parse(words[words.indexOf('-d') + 1]!) : undefined;
        const res = await api.request(body ? 'POST' : 'GET', url.pathname, body);
        assert.ok(res.status >= 200 && res.status < 300, `${line}: ${res.status} ${res.text}`);
      }
    } finally {
      await app.close();
    }
  });

  it('account-profile show and set: the API’s checks, the CLI in the audit log', async () => {
    const shown = await cli(dbFile, 'account-profile', 'show', '--json');
    assert.equal(shown.code, 0, shown.stderr);
    const before = JSON.parse(shown.stdout);
    const set = await cli(
      dbFile,
      'account-profile',
      'set',
      'city=Potsdam',
      'phone=',
      'payment_term_days=21',
      '--json',
    );
    assert.equal(set.code, 0, set.stderr);
    const after = JSON.parse(set.stdout);
    assert.equal(after.city, 'Potsdam');
    assert.equal(after.phone, null);
    assert.equal(after.payment_term_days, 21);
    assert.equal(after.name, before.name);
    assert.match((await cli(dbFile, 'account-profile', 'show')).stdout, /^city\s+Potsdam$/m);
    const bad = await cli(dbFile, 'account-profile', 'set', 'iban=DE00123');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /iban/);
    const handle = createDb({ kind: 'sqlite', file: dbFile });
    try {
      const audit = await handle.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'account.profile_update')
        .execute();
      assert.equal(audit.length, 1);
      assert.equal(audit[0]!.actor_kind, 'cli');
    } finally {
      await handle.destroy();
    }
  });
});

/** A few runs as a user starts them: the process's own exit code and streams. */
describe('CLI as a process', () => {
  const run = promisify(execFile);
  const spawnCli = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        ['--import', 'tsx', 'src/cli/index.ts', ...args],
        {
          env: { ...process.env, DATABASE_URL: ':memory:' },
        },
      );
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  it('--help exits 0; an unknown flag exits 2 with the usage line; a bad DATABASE_URL is one line, exit 1', async () => {
    const help = await spawnCli('--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Commands:/);
    const flag = await spawnCli('migrate', '--verbose');
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /Unknown option '--verbose'\nusage: npm run --silent cli -- migrate\n/);
    const { code, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'migrate'], {
      env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    assert.equal(code, 1);
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    assert.match(stderr, /^error: /);
  });
});
