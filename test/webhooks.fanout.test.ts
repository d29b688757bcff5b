import assert from 'node:assert/strict';
import { it } from 'node:test';
import { FANOUT_TRIGGER, fanoutInstalled } from '../src/modules/webhooks/webhooks.fanout.js';
import { describeEachDb } from './helpers.js';

describeEachDb('webhook fan-out, named from its module', (ctx) => {
  it('the trigger webhooks.fanout.ts names is the one on events', async () => {
    assert.equal(FANOUT_TRIGGER, 'events_webhook_fanout');
    assert.equal(await fanoutInstalled(ctx.db), true);
  });
});
