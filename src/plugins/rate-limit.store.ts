import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/index.js';
import { settleOutside } from '../shared/callbacks.js';
import { claimRequests, deleteWindowsBefore } from './rate-limit.repository.js';

interface Window {
  start: number;
  /** Requests of the lease this process still holds. */
  left: number;
  /** The window's total handed out to all processes, as of this process's last claim. */
  used: number;
  spent: boolean;
  /** Requests waiting for the claim in flight (one at a time per window), in arrival order. */
  waiting?: Callback[];
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
 *
 * One claim per window is in flight at a time: requests that arrive meanwhile wait for it
 * and are served from what it brings, in order (a claim asks for at least as many as wait).
 * Claims of their own would each replace the lease in hand with theirs, losing the rest
 * of it from the budget.
 */
export class SharedWindowStore {
  private readonly windows = new Map<string, Window>();
  private cleanedBefore = 0;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly maxKeys = 10_000,
    /** The clock (tests move it instead of waiting for the next window). */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts one request of `key`. Calls back at once (synchronously) while this process holds
   * a lease, after one database statement when it needs a new one.
   */
  take(key: string, timeWindow: number, max: number, cb: Callback): void {
    const now = this.now();
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
    if (w.waiting) {
      w.waiting.push(cb);
      return;
    }
    w.waiting = [cb];
    this.claim(key, w, timeWindow, max);
  }

  private claim(key: string, w: Window, timeWindow: number, max: number): void {
    const lease = Math.max(1, Math.floor(max / 100), w.waiting!.length);
    settleOutside(
      claimRequests(this.db, key, w.start, lease, max),
      ({ granted, used }) => {
        const waiting = w.waiting!;
        w.waiting = undefined;
        w.used = used;
        w.left += granted;
        // Less than asked for: the window has nothing left for anyone.
        if (granted < lease) w.spent = true;
        const ttl = Math.max(0, w.start + timeWindow - this.now());
        // Decide every waiting request before calling any back (a callback may take again).
        // More may have come than the claim asked for (it asked for those waiting when it
        // left): they wait for the next one.
        const answers: [Callback, Take][] = [];
        const rest: Callback[] = [];
        for (const cb of waiting) {
          if (w.left > 0) {
            w.left--;
            answers.push([cb, { current: w.used - w.left, ttl }]);
          } else if (w.spent) answers.push([cb, { current: max + 1, ttl }]);
          else rest.push(cb);
        }
        if (rest.length > 0) {
          w.waiting = rest;
          this.claim(key, w, timeWindow, max);
        }
        for (const [cb, taken] of answers) cb(null, taken);
        this.clean(w.start, timeWindow);
      },
      (err) => {
        const waiting = w.waiting ?? [];
        w.waiting = undefined;
        this.log.error({ err }, 'rate-limit store: the request goes through uncounted');
        for (const cb of waiting) cb(err);
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
