import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../src/db/index.js';
import { TokenCache, type TokenRow, type TokenSource } from '../src/plugins/token-cache.js';

// The cache against a stand-in database whose epoch and rows the test moves by hand, and
// whose reads can be held back to interleave two lookups.
function fakeSource() {
  const state = {
    epoch: 0,
    reads: 0,
    scopes: 'a',
    hold: null as Promise<void> | null,
    sync: true,
    epochReads: 0,
  };
  const source: TokenSource = {
    epoch: async () => {
      state.epochReads++;
      return { epoch: state.epoch };
    },
    epochNow: () => {
      if (!state.sync) return undefined;
      state.epochReads++;
      return { epoch: state.epoch, version: `v${state.epoch}` };
    },
    find: async (_db, hash) => {
      state.reads++;
      const scopes = state.scopes;
      if (state.hold) await state.hold;
      if (hash === 'unknown') return undefined;
      return {
        id: 1,
        scopes,
        expires_at: null,
        revoked_at: null,
        integration_id: 1,
        account_id: 1,
        user_id: 1,
        integration_revoked_at: null,
        active: 1,
      } as TokenRow;
    },
  };
  return { state, source };
}
const db = {} as Db;
const usable = () => true;

describe('token cache', () => {
  it('answers from memory while the epoch stands still and rereads once it moves', async () => {
    const { state, source } = fakeSource();
    const cache = new TokenCache(10, source);
    const first = await cache.lookup(db, 'h', usable);
    assert.equal(await cache.lookup(db, 'h', usable), first);
    assert.equal(state.reads, 1);
    state.epoch++;
    state.scopes = 'b';
    assert.equal((await cache.lookup(db, 'h', usable))?.scopes, 'b');
    assert.equal(state.reads, 2);
  });

  it('keeps neither unknown nor unusable tokens', async () => {
    const { state, source } = fakeSource();
    const cache = new TokenCache(10, source);
    assert.equal(await cache.lookup(db, 'unknown', usable), undefined);
    await cache.lookup(db, 'unknown', usable);
    await cache.lookup(db, 'h', () => false);
    await cache.lookup(db, 'h', () => false);
    assert.equal(state.reads, 4);
  });

  it('does not keep a row read while another lookup saw the epoch move', async () => {
    const { state, source } = fakeSource();
    const cache = new TokenCache(10, source);
    let release!: () => void;
    state.hold = new Promise((r) => {
      release = r;
    });
    const slow = cache.lookup(db, 'h', usable); // read epoch 0, now waits for its row
    await new Promise((r) => setImmediate(r));
    state.epoch++; // the token changes...
    state.hold = null;
    await cache.lookup(db, 'other', usable); // ...and another request sees epoch 1
    release();
    assert.equal((await slow)?.scopes, 'a');
    state.scopes = 'b';
    assert.equal((await cache.lookup(db, 'h', usable))?.scopes, 'b', 'the stale row was not kept');
  });

  // What `check` answers, and how many times it read the epoch for it.
  const checked = (cache: TokenCache, hash: string) =>
    new Promise<TokenRow | undefined>((resolve, reject) =>
      cache.check(db, hash, (err, kept) => (err ? reject(err) : resolve(kept))),
    );

  it('checks kept tokens against an epoch read after the check was asked for', async () => {
    const { state, source } = fakeSource();
    const cache = new TokenCache(10, source);
    assert.equal(await checked(cache, 'h'), undefined, 'nothing kept yet');
    const row = await cache.lookup(db, 'h', usable);
    assert.equal(await checked(cache, 'h'), row);
    assert.equal(await checked(cache, 'other'), undefined);
    // The change lands after the check was asked for, before the epoch is read: it counts.
    const pending = checked(cache, 'h');
    state.epoch++;
    assert.equal(await pending, undefined, 'the epoch moved');
    await cache.lookup(db, 'h', usable);
    state.sync = false; // PostgreSQL, or SQLite inside a transaction: the epoch read waits
    assert.ok(await checked(cache, 'h'));
  });

  it('shares one epoch read among the checks asked for before it', async () => {
    const { state, source } = fakeSource();
    const cache = new TokenCache(10, source);
    const row = await cache.lookup(db, 'h', usable);
    const before = state.epochReads;
    const all = await Promise.all([checked(cache, 'h'), checked(cache, 'h'), checked(cache, 'x')]);
    assert.deepEqual(all, [row, row, undefined]);
    assert.equal(state.epochReads - before, 1);
    await checked(cache, 'h');
    assert.equal(state.epochReads - before, 2, 'a later check reads again');
  });

  it('a check asked for while an epoch read is in flight waits for the next read, sent once that one has answered', async () => {
    const { state, source } = fakeSource();
    const cache = new TokenCache(10, source);
    const row = await cache.lookup(db, 'h', usable);
    state.sync = false;
    // Epoch reads that answer when the test says, with the epoch as it is at that moment.
    const answers: Array<() => void> = [];
    let sent = 0;
    source.epoch = () => {
      sent++;
      return new Promise((resolve) => answers.push(() => resolve({ epoch: state.epoch })));
    };
    const first = checked(cache, 'h');
    await new Promise((r) => setImmediate(r));
    assert.equal(sent, 1);
    // Asked for while the first read is in flight; then a change commits, still before the
    // first read answers: the first read may have seen the epoch before the change.
    const second = checked(cache, 'h');
    const third = checked(cache, 'h');
    await new Promise((r) => setImmediate(r));
    assert.equal(sent, 1, 'no second read while the first is in flight');
    answers.shift()!();
    assert.equal(await first, row, 'read before the change: the kept row stands for the first');
    state.epoch++;
    await new Promise((r) => setImmediate(r));
    assert.equal(sent, 2, 'one read for the two that waited');
    answers.shift()!();
    assert.deepEqual(await Promise.all([second, third]), [undefined, undefined], 'the change is seen');
  });

  it('empties itself when full', async () => {
    const { state, source } = fakeSource();
    const cache = new TokenCache(1, source);
    await cache.lookup(db, 'h', usable);
    await cache.lookup(db, 'i', usable);
    await cache.lookup(db, 'h', usable);
    assert.equal(state.reads, 3);
  });

  it('hands each check the data version read in the same statement as its epoch (PostgreSQL)', async () => {
    const { state, source } = fakeSource();
    state.sync = false;
    let version = 'v1';
    source.epoch = async () => {
      state.epochReads++;
      return { epoch: state.epoch, version };
    };
    const cache = new TokenCache(10, source);
    const versionOf = () =>
      new Promise<string | undefined>((resolve, reject) =>
        cache.check(db, 'h', (err, _kept, v) => (err ? reject(err) : resolve(v))),
      );
    await cache.lookup(db, 'h', usable);
    assert.equal(await versionOf(), 'v1');
    version = 'v2';
    const before = state.epochReads;
    assert.deepEqual(await Promise.all([versionOf(), versionOf()]), ['v2', 'v2']);
    assert.equal(state.epochReads - before, 1, 'one read for both');
    // A database without one (SQLite in a transaction) reads the epoch alone.
    source.epoch = async () => ({ epoch: state.epoch });
    assert.equal(await versionOf(), undefined);
  });

  it('hands each check the data version read with its epoch without waiting (SQLite)', async () => {
    const { state, source } = fakeSource();
    const cache = new TokenCache(10, source);
    const versionOf = () =>
      new Promise<string | undefined>((resolve, reject) =>
        cache.check(db, 'h', (err, _kept, v) => (err ? reject(err) : resolve(v))),
      );
    await cache.lookup(db, 'h', usable);
    assert.equal(await versionOf(), 'v0');
    state.epoch = 7;
    const before = state.epochReads;
    assert.deepEqual(await Promise.all([versionOf(), versionOf()]), ['v7', 'v7']);
    assert.equal(state.epochReads - before, 1, 'one read for both');
  });
});
