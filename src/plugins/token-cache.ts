import type { Db } from '../db/index.js';
import { findTokenByHash, readAuthEpoch } from '../modules/integration/integration.repository.js';

export type TokenRow = Awaited<ReturnType<typeof findTokenByHash>>[number];

/** Where the cache reads from: the repository, or a stand-in in unit tests. */
export interface TokenSource {
  epoch(db: Db): Promise<number>;
  /** The epoch without waiting, where the database allows it (SQLite outside a transaction). */
  epochNow?(db: Db): number | undefined;
  find(db: Db, tokenHash: string): Promise<TokenRow | undefined>;
}

const database: TokenSource = {
  epoch: async (db) => Number((await readAuthEpoch(db))[0]?.value),
  epochNow: (db) => {
    const rows = readAuthEpoch.now(db);
    return rows && Number(rows[0]?.value);
  },
  find: async (db, tokenHash) => (await findTokenByHash(db, tokenHash))[0],
};

/**
 * Token rows found valid, kept while the auth epoch (migration 700) stands still. Every
 * lookup first reads the epoch, a one-row read; when it has moved — a token, integration or
 * user changed, in this process or any other — everything kept is dropped. So a revocation
 * takes effect on the very next request, as without the cache.
 *
 * Only usable rows are kept (unknown and revoked tokens always go to the database) and
 * expiry is checked by the caller on every use.
 */
export class TokenCache {
  private rows = new Map<string, TokenRow>();
  private epoch: number | undefined;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly source: TokenSource = database,
  ) {}

  /**
   * The kept row, if it can be told right now: the epoch could be read without waiting and
   * has not moved. `undefined` means "ask `lookup`", not "unknown token".
   */
  keptNow(db: Db, tokenHash: string): TokenRow | undefined {
    const epoch = this.source.epochNow?.(db);
    if (epoch === undefined || epoch !== this.epoch) return undefined;
    return this.rows.get(tokenHash);
  }

  async lookup(db: Db, tokenHash: string, usable: (row: TokenRow) => boolean): Promise<TokenRow | undefined> {
    const epoch = await this.source.epoch(db);
    if (epoch !== this.epoch) {
      this.rows.clear();
      this.epoch = epoch;
    }
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
