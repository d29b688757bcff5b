import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/index.js';
import { claimRequests, deleteWindowsBefore } from './rate-limit.repository.js';

interface Window {
  start: number;
  /** Requests of the lease this process still holds. */
  left: number;
  /** The window's total handed out to all processes, as of this process's last claim. */
  used: number;
  spent: boolean;
}

/** `current`: requests counted in the window including this one; `ttl`: ms until it ends. */
export type Take = { current: number; ttl: number };
type Callback = (err: Error | null, result?: Take) => void;

/**
 * Request budgets shared by every process on the database.
 *
 * Counting each request in the database would cost a write per request. Instead a process
 * takes a lease of 1 % of the budget (at least one request) in one atomic statement and
 * serves it from memory; when its lease runs out it takes the next. No more than `max`
 * requests are ever admitted per window in all. With several processes, one may refuse while
 * another still holds part of a lease: at most a lease less than `max` per other process.
 * Windows are fixed and aligned to the clock, so processes agree on them.
 */
export class SharedWindowStore {
  private readonly windows = new Map<string, Window>();
  private cleanedBefore = 0;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly maxKeys = 10_000,
  ) {}

  /**
   * Counts one request of `key`. Calls back at once (synchronously) while this process holds
   * a lease, after one database statement when it needs a new one.
   */
  take(key: string, timeWindow: number, max: number, cb: Callback): void {
    const now = Date.now();
    const start = now - (now % timeWindow);
    const ttl = start + timeWindow - now;
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      if (this.windows.size >= this.maxKeys) this.windows.clear();
      w = { start, left: 0, used: 0, spent: false };
      this.windows.set(key, w);
    }
    if (w.left > 0) {
      w.left--;
      cb(null, { current: w.used - w.left, ttl });
      return;
    }
    if (w.spent) {
      cb(null, { current: max + 1, ttl });
      return;
    }
    const window = w;
    claimRequests(this.db, key, start, Math.max(1, Math.floor(max / 100)), max).then(
      ({ granted, used }) => {
        window.used = used;
        if (granted === 0) {
          window.spent = true;
          cb(null, { current: max + 1, ttl });
        } else {
          window.left = granted - 1;
          cb(null, { current: used - window.left, ttl });
        }
        this.clean(start, timeWindow);
      },
      (err: Error) => {
        this.log.error({ err }, 'rate-limit store: the request goes through uncounted');
        cb(err);
      },
    );
  }

  /** Once per window, drop the rows of windows that are over. */
  private clean(start: number, timeWindow: number): void {
    if (this.cleanedBefore >= start - timeWindow) return;
    this.cleanedBefore = start - timeWindow;
    deleteWindowsBefore(this.db, this.cleanedBefore).catch((err: unknown) =>
      this.log.warn({ err }, 'could not delete old rate-limit windows'),
    );
  }
}
