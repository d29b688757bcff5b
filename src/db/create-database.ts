import pg from 'pg';
import type { DbConfig } from '../config.js';
import { pgTimeouts } from './pg-pool.js';

/**
 * PostgreSQL: makes DATABASE_URL's database when the server says it does not exist (3D000),
 * as the URL's user, from the server's maintenance database (`postgres`, else `template1`).
 * Answers a line to tell the operator when it made one. A user who may not create databases
 * gets an error saying how to create it; any other error of the first connection (server
 * unreachable, authentication) is thrown as it is. SQLite makes its file itself.
 */
export async function createDatabaseIfMissing(config: DbConfig): Promise<string | undefined> {
  if (config.kind !== 'postgres') return undefined;
  const connectMs = pgTimeouts(config.url).connectMs;
  const probe = new pg.Client({ connectionString: config.url, connectionTimeoutMillis: connectMs });
  try {
    await probe.connect();
    return undefined;
  } catch (err) {
    if (codeOf(err) !== '3D000') throw err;
  } finally {
    await probe.end().catch(() => {});
  }

  const url = new URL(config.url);
  const user = decodeURIComponent(url.username) || undefined;
  // Without a database in the URL, PostgreSQL takes the user's name.
  const name = decodeURIComponent(url.pathname.slice(1)) || user;
  if (!name) return undefined;
  const how = howToCreate(url, name, user);
  let lastError: unknown;
  for (const maintenance of ['postgres', 'template1']) {
    const target = new URL(url);
    target.pathname = `/${maintenance}`;
    const admin = new pg.Client({ connectionString: target.toString(), connectionTimeoutMillis: connectMs });
    try {
      await admin.connect();
    } catch (err) {
      lastError = err;
      continue;
    }
    try {
      await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
      return `created the PostgreSQL database "${name}" (DATABASE_URL names it; it did not exist)`;
    } catch (err) {
      // Another process (a second server, the worker) made it first: as good.
      if (codeOf(err) === '42P04') return undefined;
      if (codeOf(err) === '42501')
        throw new Error(
          `database "${name}" does not exist and ${user ? `user "${user}"` : 'this user'} may not create it (42501); ${how}`,
        );
      throw new Error(`database "${name}" does not exist and creating it failed: ${messageOf(err)}; ${how}`);
    } finally {
      await admin.end().catch(() => {});
    }
  }
  throw new Error(
    `database "${name}" does not exist, and the maintenance database to create it from cannot be reached (${messageOf(lastError)}); ${how}`,
  );
}

const codeOf = (err: unknown) => (err as { code?: string } | null)?.code;
const messageOf = (err: unknown) => {
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  return code && !message.includes(code) ? `${message} (${code})` : message;
};

const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

function howToCreate(url: URL, name: string, user: string | undefined): string {
  const host = url.hostname ? ` -h ${url.hostname}` : '';
  const port = url.port ? ` -p ${url.port}` : '';
  const owner = user ? ` -O ${user}` : '';
  return `create it once as a PostgreSQL superuser: createdb${host}${port} -U postgres${owner} ${name}`;
}
