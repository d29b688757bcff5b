import { spawn } from 'node:child_process';

/**
 * A stop that ends. `process.exit()` joins the process's worker threads (the pools', the
 * module loader's) and libuv's threads before it returns to the system; one that does not stop
 * keeps the main thread in that wait for ever, where no timer of ours runs any more. So every
 * stop is bounded twice: in-process (pools terminated and awaited with a bound, then
 * `process.exit`), and by a watchdog process that kills this one if it is still there at the
 * limit.
 */

/** What holds threads or child processes: worker pools register here while they are open. */
export interface Closable {
  close(): Promise<void>;
}

const open = new Set<Closable>();

/** Registers a pool whose threads must end before the process exits; returns the unregister. */
export function holdsThreads(pool: Closable): () => void {
  open.add(pool);
  return () => open.delete(pool);
}

/** Closes every registered pool (threads terminated, children killed), waiting at most `ms`. */
export async function endThreads(ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const ended = Promise.allSettled([...open].map((p) => p.close())).then(() => true as const);
  try {
    return await Promise.race([ended, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs in its own small process: SIGKILLs `pid` after `ms`, unless its stdin (a pipe from
 * `pid`, closed by the system when `pid` ends) reaches its end first. The pipe, not the pid,
 * says the process is still there: a pid can be reused.
 */
const WATCHDOG = `
const [pid, ms] = process.argv.slice(1).map(Number);
setTimeout(() => { try { process.kill(pid, 'SIGKILL'); } catch {} process.exit(0); }, ms);
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
`;

let watchdogArmed = false;

/** From now, this process is killed (SIGKILL) if it still lives `ms` later. */
export function armWatchdog(ms: number): void {
  if (watchdogArmed) return;
  watchdogArmed = true;
  try {
    const child = spawn(process.execPath, ['-e', WATCHDOG, String(process.pid), String(ms)], {
      // Its own process group: a Ctrl-C to ours does not end it before it is needed.
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { PATH: process.env.PATH ?? '' },
    });
    child.on('error', () => {});
    child.stdin?.on('error', () => {});
    child.unref();
    // The pipe must not keep this process's event loop alive.
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  } catch {
    // No watchdog (no processes left to spawn): the in-process bound still holds.
  }
}

/** Time kept back from the drain limit for ending threads and exiting. */
export function exitReserveMs(limitMs: number): number {
  return Math.min(2000, Math.floor(limitMs / 3));
}

let exiting = false;

/** Ends the pools' threads and children (bounded), then exits. */
export async function exitAfterThreads(code: number, boundMs: number): Promise<void> {
  if (exiting) return;
  exiting = true;
  await endThreads(boundMs);
  process.exit(code);
}

/**
 * Bounds a stop that has begun: the watchdog at `limitMs`; at `limitMs` less the reserve,
 * `overrun` (log what is still busy; end what must not outlive the process) and an exit with
 * code 1, whatever the drain is doing.
 */
export function boundStop(limitMs: number, overrun: () => void): void {
  armWatchdog(limitMs);
  const reserve = exitReserveMs(limitMs);
  setTimeout(() => {
    try {
      overrun();
    } finally {
      void exitAfterThreads(1, reserve / 2);
    }
  }, limitMs - reserve).unref();
}
