import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeOffences, type FuzzSummary, fuzz } from './fuzz/runner.js';
import { buildWorld, type World } from './fuzz/world.js';
import { describeEachDb } from './helpers.js';

/**
 * Schema-driven fuzzing of every operation of the service's own OpenAPI document with bad
 * input (see test/fuzz/requests.ts): no answer is a 5xx, every error is problem+json (RFC 6749
 * JSON on the OAuth token endpoint), and a refused request leaves the database as it was.
 * A bounded budget here; `npm run fuzz -- --requests N --seed S` runs longer.
 */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 6000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

describeEachDb(
  'fuzz: bad input on every operation',
  (ctx) => {
    let world: World;
    let summary: FuzzSummary;
    before(async () => {
      world = await buildWorld(ctx.app, ctx.db, { main: ctx.account.accountId, other: ctx.other.accountId });
      summary = await fuzz(ctx.app, ctx.db, world, ctx.app.swagger(), { requests: REQUESTS, seed: SEED });
    });

    it('covers every operation of the document', () => {
      assert.equal(summary.requests, REQUESTS);
      assert.ok(summary.operations >= 100, `only ${summary.operations} operations`);
      assert.ok(summary.checkedBatches > 0, 'no batch of refused requests was compared');
    });

    for (const kind of [
      '5xx',
      'not problem+json',
      'not an OAuth error',
      'partial write',
      "another tenant's id accepted",
    ] as const) {
      it(`finds no ${kind} answer`, () => {
        const found = summary.offences.filter((o) => o.kind === kind);
        assert.equal(
          found.length,
          0,
          `${found.length} × ${kind} (seed ${SEED}):\n${describeOffences(found)}`,
        );
      });
    }
  },
  // A relay, so sending is tried rather than 503 (no worker runs: nothing is ever sent); any
  // mailbox host, so the world's mailbox (a name this network cannot resolve) is accepted.
  {
    config: {
      mail: { smtpUrl: 'smtp://127.0.0.1:9', from: 'fuzz@mailer.example', dkim: null },
      mailboxAllowPrivate: true,
    },
  },
);
