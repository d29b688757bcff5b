// The CLI as the package's bin (bin/pm-invoicing.mjs): a process of its own, as a user runs it,
// with its exit codes. The commands themselves are tested in process (cli*.test.ts).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../src/cli/commands.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Runs the bin as package.json names it: its exit code and what it wrote. */
async function bin(args: string[], env: Record<string, string> = {}) {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  const file = join(ROOT, pkg.bin['pm-invoicing']);
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    execFile(file, args, { cwd: ROOT, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') reject(err);
      else resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
    });
  });
}

describe('CLI bin (pm-invoicing)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-bin-'));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('--help names the bin and lists every command, exit 0', async () => {
    const res = await bin(['--help']);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stderr, '');
    assert.match(res.stdout, /^Usage: pm-invoicing <command> \[options\]\n/);
    for (const c of COMMANDS) assert.ok(res.stdout.includes(`  ${c.name} `), c.name);
    assert.match(res.stdout, /"pm-invoicing <command> --help" shows a command's options/);
  });

  it('a command runs against DATABASE_URL; a usage error exits 2 with the bin’s usage line', async () => {
    const migrate = await bin(['migrate'], { DATABASE_URL: join(dir, 'bin.sqlite') });
    assert.equal(migrate.code, 0, migrate.stderr);
    assert.equal(migrate.stdout, 'migrations applied\n');
    const wrong = await bin(['migrate', '--verbose']);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /Unknown option '--verbose'\nusage: pm-invoicing migrate\n/);
  });
});
