/**
 * What a database error says about the database rather than about the request: unreachable
 * or overloaded (try again soon), read-only, or out of space. plugins/errors.ts turns these
 * into 503 / 507 problems; db/index.ts drops connections that are lost.
 */
export type DbFault = 'unavailable' | 'read_only' | 'storage_full';

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** Socket errors of a connection that is not there (any more). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * pg and pg-pool report a lost or timed-out connection with a message and no code: the
 * socket closed ("Connection terminated unexpectedly", "… due to connection timeout"), no
 * connection within connectionTimeoutMillis, no answer within query_timeout, and any query
 * on a client after that.
 */
const LOST_MESSAGES =
  /^(Connection terminated|Query read timeout|Client has encountered a connection error|Client was closed and is not queryable)/;
const POOL_MESSAGES = /^(timeout exceeded when trying to connect|Cannot use a pool after calling end)/;

/**
 * SQLSTATEs of a session the server ended: admin or crash shutdown, cannot connect now, idle
 * session timeout, idle in transaction too long.
 */
const ENDED_SESSION = new Set(['57P01', '57P02', '57P03', '57P05', '25P03']);

/**
 * PostgreSQL under load or out of a resource for the moment: statement timeout or cancel,
 * lock timeout, deadlock, serialization failure, too many connections, out of memory. The
 * same request may well succeed a moment later.
 */
const TRANSIENT = new Set(['57014', '55P03', '40P01', '40001', '53000', '53200', '53300', '53400']);

/** The error and what it wraps (`cause`, the attempts of an AggregateError), a few levels deep. */
function* chain(err: unknown, depth = 0): Generator<ErrorLike> {
  if (typeof err !== 'object' || err === null || depth > 4) return;
  const e = err as ErrorLike;
  yield e;
  if (Array.isArray(e.errors)) for (const inner of e.errors) yield* chain(inner, depth + 1);
  yield* chain(e.cause, depth + 1);
}

const codeOf = (e: ErrorLike) => (typeof e.code === 'string' ? e.code : '');
const messageOf = (e: ErrorLike) => (typeof e.message === 'string' ? e.message : '');

/**
 * The database's own code for this error, not for what it wraps: a PostgreSQL SQLSTATE
 * ('23505') or better-sqlite3's ('SQLITE_CONSTRAINT_UNIQUE'); '' when it has none.
 */
export const sqlState = (err: unknown): string =>
  typeof err === 'object' && err !== null ? codeOf(err as ErrorLike) : '';

/** A unique index refused the write, on either database. */
export const isUniqueViolation = (err: unknown): boolean => {
  const code = sqlState(err);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
};

/** An error in one line: its message, and its database code where it has one (`sqlState`). */
export const withCode = (err: unknown): string => {
  const code = sqlState(err);
  return `${String((err as { message?: unknown } | null)?.message ?? err)}${code ? ` (${code})` : ''}`;
};

/** The connection this error came from is gone or in an unknown state: do not use it again. */
export function connectionLost(err: unknown): boolean {
  for (const e of chain(err)) {
    const code = codeOf(e);
    if (SOCKET_CODES.has(code) || ENDED_SESSION.has(code) || code.startsWith('08')) return true;
    if (LOST_MESSAGES.test(messageOf(e))) return true;
  }
  return false;
}

export function dbFault(err: unknown): DbFault | undefined {
  if (connectionLost(err)) return 'unavailable';
  for (const e of chain(err)) {
    const code = codeOf(e);
    if (code === 'SQLITE_FULL' || code === 'SQLITE_IOERR_SHMSIZE' || code === '53100') return 'storage_full';
    // SQLite: a read-only file or directory, `query_only`; PostgreSQL: a standby or a
    // read-only transaction mode (default_transaction_read_only).
    if (code.startsWith('SQLITE_READONLY') || code === '25006') return 'read_only';
    // SQLite's write lock stayed taken past busy_timeout: load, like a lock timeout.
    if (code.startsWith('SQLITE_BUSY') || TRANSIENT.has(code)) return 'unavailable';
    if (POOL_MESSAGES.test(messageOf(e))) return 'unavailable';
  }
  return undefined;
}

/** The start-up error for a database that cannot be written, in one line. */
export function notWritableError(kind: 'sqlite' | 'postgres', err: unknown): Error {
  const why = withCode(err);
  const hint =
    kind === 'postgres'
      ? "check the user's rights and that the server is not a standby or in read-only mode (default_transaction_read_only)"
      : 'check that the file and its directory are writable by this process (SQLite writes its WAL beside the file)';
  return new Error(`the database cannot be written: ${why}; ${hint}`, { cause: err });
}
