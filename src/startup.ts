import cluster from 'node:cluster';
import { ConfigError } from './config.js';

/**
 * Start-up failures (bad configuration, port in use, database unreachable, a migration that
 * fails) end the process with one line on stderr that says what to change, and exit code 1:
 * an operator reads it in a terminal or a service manager's journal, where a stack trace of
 * the event loop's internals hides the one fact that matters.
 */

type ErrnoLike = Error & {
  code?: string;
  syscall?: string;
  address?: string;
  hostname?: string;
  port?: number;
  errors?: unknown[];
};

/** Connection errors of the database client: the server is not there, or not reachable. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);

/** What an error means to whoever starts the service, in one line (no trailing period). */
export function describeStartupError(err: unknown, what?: string): string {
  if (err instanceof ConfigError) return err.message;
  if (!(err instanceof Error)) return `${what ? `${what}: ` : ''}${String(err)}`;
  const e = firstDetailed(err as ErrnoLike);
  const code = e.code;
  if (
    code &&
    UNREACHABLE.has(code) &&
    (e.syscall === 'connect' || e.syscall === 'getaddrinfo' || !e.syscall)
  ) {
    const host = e.address ?? e.hostname;
    const where = host ? ` at ${host}${e.port ? `:${e.port}` : ''}` : '';
    return `the database is unreachable${where} (${code}); check DATABASE_URL and that the database server runs`;
  }
  const message = oneLine(err.message || e.message) || err.name;
  const suffix = code && !message.includes(code) ? ` (${code})` : '';
  return `${what ? `${what}: ` : ''}${message}${suffix}`;
}

/** Why the server could not take its port, in one line. */
export function describeListenError(err: unknown, host: string, port: number): string {
  const e = firstDetailed(err as ErrnoLike);
  const p = e.port ?? port;
  if (e.code === 'EADDRINUSE') return `port ${p} is already in use (EADDRINUSE); set PORT`;
  if (e.code === 'EACCES') return `no permission to listen on port ${p} (EACCES); set PORT to 1024 or above`;
  if (e.code === 'EADDRNOTAVAIL')
    return `address ${host} is not one of this machine's (EADDRNOTAVAIL); set HOST`;
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN')
    return `HOST ${host} does not resolve (${e.code}); set HOST`;
  return describeStartupError(err, `listening on ${host}:${port}`);
}

/**
 * Node reports a connection refused on every address of a name (localhost: ::1 and
 * 127.0.0.1) as an AggregateError with an empty message: the first one tells more.
 */
function firstDetailed(err: ErrnoLike): ErrnoLike {
  const inner = err.errors?.[0];
  if (!err.message && inner instanceof Error) return inner as ErrnoLike;
  return err;
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, '; ').trim();

/** Runs one start-up step; a failure becomes a StartupError naming the step. */
export async function startupStep<T>(what: string, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw err instanceof StartupError
      ? err
      : new StartupError(describeStartupError(err, what), { cause: err });
  }
}

export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** A server process under the supervisor reports its start-up failure instead of printing it. */
export interface StartupFailureMessage {
  startupError: string;
}
export const isStartupFailure = (m: unknown): m is StartupFailureMessage =>
  typeof m === 'object' && m !== null && typeof (m as StartupFailureMessage).startupError === 'string';

/**
 * Ends the process for a start-up failure: one line on stderr and exit code 1. A server
 * process of the supervisor (cluster.ts) hands the line to it instead: the supervisor says it
 * once for all of them, or retries if others serve.
 */
export function failStartup(err: unknown): void {
  const line = err instanceof StartupError ? err.message : describeStartupError(err);
  if (cluster.isWorker && process.connected && process.send) {
    process.send({ startupError: line } satisfies StartupFailureMessage, () => process.exit(1));
    return;
  }
  process.stderr.write(`error: ${line}\n`);
  process.exit(1);
}
