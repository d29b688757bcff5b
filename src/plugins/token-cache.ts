import type { Db } from '../db/index.js';
import { settleOutside } from '../shared/callbacks.js';
import type { TokenRow, TokenSource } from '../shared/tokens.js';

export type { TokenRow, TokenSource } from '../shared/tokens.js';

/**
 * Token rows found valid, kept while the auth epoch (migration 700) stands still. Every check
 * is decided against an epoch read made after it was asked for (see `check` for how requests
 * share one read); when the epoch has moved — a token, integration or user changed, in this
 * process or any other — everything kept is dropped. So a revocation takes effect on the very
 * next request, as without the cache.
 *
 * Only usable rows are kept (unknown and revoked tokens always go to the database) and
 * expiry is checked by the caller on every use.
 */
/** `version`: the data version read with the epoch, where there is one (db/data-version.ts). */
type CheckCallback = (err: Error | null, kept?: TokenRow, version?: string) => void;

export class TokenCache {
  private rows = new Map<string, TokenRow>();
  private epoch: number | undefined;
  private waiting: Array<{ tokenHash: string; cb: CheckCallback }> = [];
  /** An epoch read of `check`'s is in flight. */
  private reading = false;

  /** `source`: the token tables' owner (the integration module), given at app build. */
  constructor(
    private readonly maxEntries: number,
    private readonly source: TokenSource,
  ) {}

  /**
   * Calls back with the kept row for `tokenHash` — or `undefined`: ask `lookup` — once the
   * epoch has been read at a moment after this call. All calls made before that moment share
   * the one read, which runs when the event loop has taken in the requests that are ready
   * (setImmediate): under load one read serves a whole batch of requests.
   *
   * Still exact: a request is checked against an epoch read after its bytes arrived (its
   * onRequest hook ran before the read), so a change committed before it arrived — from this
   * process, another process or plain SQL — is seen, as with a read per request.
   *
   * One read at a time: checks asked for while a read is in flight wait for the next, sent
   * once that one has answered (a read already sent may predate them). Under load that is
   * fewer reads for as many requests — each a round trip that wakes a PostgreSQL backend and
   * costs both sides CPU; issue 15: PostgreSQL invoice creates, A/B in alternating turns,
   * 3,531 against 3,325 a second — at the cost, for such a check, of waiting for the read in
   * flight to end first.
   */
  check(db: Db, tokenHash: string, cb: CheckCallback): void {
    this.waiting.push({ tokenHash, cb });
    if (this.waiting.length === 1 && !this.reading) setImmediate(() => this.readEpochFor(db));
  }

  /** The epoch as just read: if it moved, nothing kept holds any more. */
  private advance(epoch: number): void {
    if (epoch === this.epoch) return;
    this.rows.clear();
    this.epoch = epoch;
  }

  private readEpochFor(db: Db): void {
    const waiting = this.waiting;
    this.waiting = [];
    this.reading = true;
    const settle = (err: Error | null, epoch?: number, version?: string) => {
      this.reading = false;
      // The checks asked for meanwhile: their read, once the event loop has taken in the rest.
      if (this.waiting.length > 0) setImmediate(() => this.readEpochFor(db));
      if (!err) this.advance(epoch!);
      let thrown: unknown;
      for (const w of waiting) {
        try {
          if (err) w.cb(err);
          else w.cb(null, this.rows.get(w.tokenHash), version);
        } catch (e) {
          thrown ??= e; // every waiter is answered first
        }
      }
      if (thrown !== undefined) throw thrown;
    };
    let now: { epoch: number; version?: string } | undefined;
    try {
      now = this.source.epochNow?.(db);
    } catch (err) {
      settle(err as Error);
      return;
    }
    if (now !== undefined) settle(null, now.epoch, now.version);
    // Settled outside the promise chain: a callback that throws is an uncaught exception
    // there, as on the synchronous path, not a rejection nobody handles.
    else
      settleOutside(
        this.source.epoch(db),
        (read) => settle(null, read.epoch, read.version),
        (err) => settle(err),
      );
  }

  async lookup(db: Db, tokenHash: string, usable: (row: TokenRow) => boolean): Promise<TokenRow | undefined> {
    const { epoch } = await this.source.epoch(db);
    this.advance(epoch);
    const kept = this.rows.get(tokenHash);
    if (kept) return kept;
    const row = await this.source.find(db, tokenHash);
    // Another lookup may have seen the epoch move while this one waited for the database:
    // then this row may predate the change and must not be kept.
    if (row && usable(row) && this.epoch === epoch) {
      if (this.rows.size >= this.maxEntries) this.rows.clear();
      this.rows.set(tokenHash, row);
    }
    return row;
  }
}
