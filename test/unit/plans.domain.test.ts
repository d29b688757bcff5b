import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  autoSettings,
  duePeriods,
  firstState,
  sendRefusal,
} from '../../src/modules/outgoing-invoices/plans.domain.js';

const off = { auto_generate: 0, auto_send: 0, auto_from: null };
const on = (from: string, send = 1) => ({ auto_generate: 1, auto_send: send, auto_from: from });

describe('recurring plans that run themselves: the rules', () => {
  it('auto_send needs auto_generate, naming the field that breaks it', () => {
    assert.deepEqual(autoSettings(null, { auto_send: true }, '2026-12-07').errors, [
      { field: 'auto_send', message: 'needs auto_generate: true' },
    ]);
    assert.deepEqual(
      autoSettings(on('2026-01-01'), { auto_generate: false }, '2026-12-07').errors.map((e) => e.field),
      ['auto_generate'],
    );
    assert.deepEqual(
      autoSettings(on('2026-01-01'), { auto_generate: false, auto_send: false }, '2026-12-07'),
      {
        errors: [],
        values: off,
      },
    );
  });

  it('auto_from is the day auto_generate was turned on, kept while it stays on', () => {
    assert.deepEqual(autoSettings(null, { auto_generate: true }, '2026-12-07').values, on('2026-12-07', 0));
    assert.equal(
      autoSettings(on('2026-01-01'), { auto_send: false }, '2026-12-07').values.auto_from,
      '2026-01-01',
    );
    assert.equal(autoSettings(off, {}, '2026-12-07').values.auto_from, null);
  });

  it('due: started by today, not ended before auto_from; nothing when off', () => {
    const plan = { type: 'recurring1', plan_start: '2026-01-31', plan_end: '2026-12-31' };
    const starts = (today: string, from: string) =>
      duePeriods({ ...plan, ...on(from) }, today).map((p) => p.start);
    assert.deepEqual(starts('2026-03-15', '2026-03-10'), ['2026-02-28']);
    assert.deepEqual(starts('2026-05-01', '2026-03-10'), ['2026-02-28', '2026-03-31', '2026-04-30']);
    assert.deepEqual(starts('2026-01-30', '2026-01-01'), []);
    assert.deepEqual(duePeriods({ ...plan, ...off }, '2026-05-01'), []);
    assert.deepEqual(duePeriods({ ...plan, type: 'partial_plan', ...on('2026-01-01') }, '2026-05-01'), []);
  });

  it('what a period found or made goes on to', () => {
    assert.equal(firstState(undefined, true).state, 'pending_send');
    assert.equal(firstState(undefined, false).state, 'generated');
    assert.equal(firstState({ status: 'open', deleted_at: null }, true).state, 'pending_send');
    assert.equal(firstState({ status: 'booked', deleted_at: null }, true).state, 'skipped');
    assert.equal(firstState({ status: 'booked', deleted_at: null }, false).state, 'generated');
    assert.equal(firstState({ status: 'open', deleted_at: '2026-01-01T00:00:00Z' }, false).state, 'skipped');
  });

  it('a pending send goes ahead only while the plan sends and its invoice is a live draft', () => {
    const master = { ...on('2026-01-01'), deleted_at: null };
    const draft = { status: 'open', deleted_at: null };
    assert.equal(sendRefusal(master, draft), null);
    assert.equal(sendRefusal({ ...master, auto_send: 0 }, draft)?.state, 'generated');
    assert.equal(sendRefusal({ ...master, deleted_at: '2026-01-01T00:00:00Z' }, draft)?.state, 'generated');
    assert.equal(sendRefusal(master, { ...draft, status: 'booked' })?.state, 'skipped');
    assert.equal(sendRefusal(master, undefined)?.state, 'skipped');
  });
});
