import assert from 'node:assert/strict';
import { it } from 'node:test';
import { WEBHOOK_EVENT_KINDS } from '../packages/sdk/src/index.js';
import { EVENT_KINDS } from '../src/shared/events.js';

it("the SDK's typed event union names every kind the service records, and ping", () => {
  assert.deepEqual([...WEBHOOK_EVENT_KINDS], [...EVENT_KINDS, 'ping']);
});
