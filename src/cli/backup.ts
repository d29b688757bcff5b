import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { loadConfig } from '../config.js';
import { type CliIo, type Command, Refused, UsageError } from './run.js';

const PG_HINT =
  'the database is PostgreSQL: back it up with pg_dump (pg_dump -Fc -f backup.dump "$DATABASE_URL") and restore it with pg_restore (pg_restore --clean --if-exists -d "$DATABASE_URL" backup.dump); uploaded files are in the database, so the dump holds them. Keep SECRET_KEY too.';

function sqliteFile(io: CliIo, what: string): string {
  const db = loadConfig(io.env).db;
  if (db.kind === 'postgres') throw new Refused(`${what}: ${PG_HINT}`);
  if (db.file === ':memory:') throw new Refused(`${what}: DATABASE_URL names an in-memory database`);
  return db.file;
}

function oneFile(positionals: string[], what: string): string {
  const [file, ...extra] = positionals;
  if (!file) throw new UsageError(`${what} needs a FILE`);
  if (extra.length) throw new UsageError(`unexpected argument: ${extra[0]}`);
  return resolve(file);
}

/** What a database holds, to say what was copied and to check a backup is one of ours. */
function describe(file: string): { accounts: number; files: number; bytes: number } {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const has = db
      .prepare(
        "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('kysely_migration', 'accounts', 'files')",
      )
      .get() as { n: number };
    if (has.n !== 3) throw new Refused(`${file} is not a database of this service`);
    const ok = db.pragma('quick_check', { simple: true });
    if (ok !== 'ok') throw new Refused(`${file} is damaged: ${String(ok)}`);
    const count = (t: string) => (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    return { accounts: count('accounts'), files: count('files'), bytes: statSync(file).size };
  } catch (err) {
    if (err instanceof Refused) throw err;
    throw new Refused(`${file} is not a database of this service (${(err as Error).message})`);
  } finally {
    db.close();
  }
}

/**
 * Everything after the first step in one step: a step reads one snapshot (in WAL mode the
 * servers go on writing meanwhile), whereas between steps a write by another connection makes
 * SQLite start the copy over, which under steady writes could go on for ever.
 */
const ALL_PAGES = () => 1_000_000_000;

/**
 * Copies `from` to `to` with SQLite's online backup: always one committed state. Written
 * beside the target and renamed, so a failed copy never leaves half a file under its name.
 */
async function copyDatabase(from: SQLite.Database, to: string): Promise<void> {
  const partial = `${to}.partial-${process.pid}`;
  try {
    await from.backup(partial, { progress: ALL_PAGES });
    // One self-contained file: no -wal beside it to forget.
    const copy = new SQLite(partial);
    copy.pragma('journal_mode = DELETE');
    copy.close();
    renameSync(partial, to);
  } finally {
    rmSync(partial, { force: true });
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export const backupCommands: Command[] = [
  {
    name: 'backup',
    args: 'FILE [--force]',
    summary: 'copy the SQLite database with its uploaded files to FILE, consistently, while the server runs',
    help: `FILE is a SQLite database of its own, ready to restore. Safe while servers write: the copy
is one committed state. Uploaded files live in the database, so the copy holds them. Keep
SECRET_KEY with it: webhook signing secrets in it are encrypted with that key.
--force overwrites an existing FILE. On PostgreSQL: use pg_dump (the command says how).`,
    options: { force: { type: 'boolean' } },
    async run(ctx) {
      const target = oneFile(ctx.positionals, 'backup');
      const source = sqliteFile(ctx.io, 'backup');
      if (!existsSync(source)) throw new Refused(`there is no database at ${source} (DATABASE_URL)`);
      if (resolve(source) === target) throw new Refused('FILE is the database itself');
      if (existsSync(target) && !ctx.values.force)
        throw new Refused(`${target} exists; --force overwrites it`);
      if (!existsSync(dirname(target))) throw new Refused(`no directory ${dirname(target)}`);
      const db = new SQLite(source, { fileMustExist: true });
      try {
        db.pragma('busy_timeout = 5000');
        await copyDatabase(db, target);
      } finally {
        db.close();
      }
      const d = describe(target);
      ctx.out(
        `backup of ${source} written to ${target}: ${mb(d.bytes)}, ${d.accounts} account(s), ${d.files} file(s)\n`,
      );
    },
  },
  {
    name: 'restore',
    args: 'FILE [--force]',
    summary: 'replace the SQLite database (data and files) with a backup; --force to overwrite',
    help: `Stop the server first. Without --force, restore only into a database that does not exist
yet. The backup is checked before anything is replaced; the next start applies any newer
migrations. Use the SECRET_KEY the backup was made with. On PostgreSQL: use pg_restore.`,
    options: { force: { type: 'boolean' } },
    async run(ctx) {
      const backup = oneFile(ctx.positionals, 'restore');
      const target = sqliteFile(ctx.io, 'restore');
      if (!existsSync(backup)) throw new Refused(`there is no file ${backup}`);
      if (resolve(target) === backup) throw new Refused('FILE is the database itself');
      const d = describe(backup);
      if (existsSync(target) && !ctx.values.force)
        throw new Refused(`${target} exists and would be overwritten; stop the server and add --force`);
      const src = new SQLite(backup, { readonly: true, fileMustExist: true });
      try {
        if (existsSync(target)) {
          // Through SQLite, not a file copy: a -wal left beside the old database is taken
          // into account instead of being replayed onto the restored pages later.
          await src.backup(target, { progress: ALL_PAGES });
        } else await copyDatabase(src, target);
      } finally {
        src.close();
      }
      ctx.out(`restored ${target} from ${backup}: ${d.accounts} account(s), ${d.files} file(s)\n`);
    },
  },
];
