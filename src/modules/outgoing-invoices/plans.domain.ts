import type { FieldError } from '../../shared/errors.js';
import { intervalMonths, isRecurring, type Period, planSchedule } from './invoices.domain.js';

/**
 * What the scheduler did for a period of a recurring plan (`plan_runs.state`):
 * - `generated`: its invoice exists (made by the scheduler or by POST …/generate); nothing to send;
 * - `pending_send`: to be booked and queued for sending (auto_send);
 * - `queued`: booked and queued in the mail outbox (`mail_message_id`);
 * - `booked`: booked but not queued, `reason` says why (no mail relay, no recipient, the gate);
 * - `failed`: booking was refused, `reason` says why; the invoice stays a draft;
 * - `skipped`: its invoice was deleted or already booked by someone: the plan sends nothing.
 */
export const RUN_STATES = ['generated', 'pending_send', 'queued', 'booked', 'failed', 'skipped'] as const;
export type RunState = (typeof RUN_STATES)[number];
export const RUN_STATE_TEXT =
  'generated: the invoice exists, nothing to send; pending_send: to be booked and e-mailed; queued: booked and queued for e-mail (mail_message_id); booked: booked, not sent (reason); failed: booking refused (reason), the invoice stays a draft; skipped: its invoice was deleted or booked by someone else (reason)';

/** A master's scheduler settings as stored (0/1 columns). */
export interface AutoColumns {
  auto_generate: number;
  auto_send: number;
  auto_from: string | null;
}

/**
 * The settings after a create (`current` null) or PATCH. `auto_send` needs `auto_generate`
 * (422 naming the field that breaks it, rather than turning the other one on unasked).
 * Turning `auto_generate` on sets `auto_from` to today: periods that ended before are never
 * made or sent by the scheduler, so switching a plan that started long ago on sends no backlog.
 */
export function autoSettings(
  current: AutoColumns | null,
  body: { auto_generate?: boolean | undefined; auto_send?: boolean | undefined },
  today: string,
): { errors: FieldError[]; values: AutoColumns } {
  const generate = body.auto_generate ?? Boolean(current?.auto_generate);
  const send = body.auto_send ?? Boolean(current?.auto_send);
  const errors: FieldError[] = [];
  if (send && !generate) {
    errors.push(
      body.auto_generate === false
        ? {
            field: 'auto_generate',
            message: 'cannot be turned off while auto_send is on: set auto_send false too',
          }
        : { field: 'auto_send', message: 'needs auto_generate: true' },
    );
  }
  const wasOn = Boolean(current?.auto_generate);
  return {
    errors,
    values: {
      auto_generate: generate ? 1 : 0,
      auto_send: send ? 1 : 0,
      auto_from: generate ? (wasOn ? (current?.auto_from ?? today) : today) : null,
    },
  };
}

/**
 * The periods whose invoice is due on `today`: started on or before it, and not ended before
 * the scheduler was turned on. Every missed day is caught up by this, once (the caller skips
 * periods already run).
 */
export function duePeriods(
  master: { type: string; plan_start: string | null; plan_end: string | null } & AutoColumns,
  today: string,
): Period[] {
  if (!master.auto_generate || !isRecurring(master.type) || !master.plan_start || !master.plan_end) return [];
  const from = master.auto_from ?? today;
  return planSchedule(master.plan_start, master.plan_end, intervalMonths(master.type)).filter(
    (p) => p.start <= today && p.end >= from,
  );
}

interface ChildState {
  status: string;
  deleted_at: string | null;
}

/** The first state of a period's run: what to do with the invoice found (or just made). */
export function firstState(
  child: ChildState | undefined,
  autoSend: boolean,
): { state: RunState; reason: string | null } {
  if (child?.deleted_at) return { state: 'skipped', reason: 'its invoice was deleted before its date' };
  if (!autoSend) return { state: 'generated', reason: null };
  if (child?.status === 'booked')
    return { state: 'skipped', reason: 'its invoice was booked before its date: the plan does not send it' };
  return { state: 'pending_send', reason: null };
}

/**
 * Whether a pending period is still to be booked and sent when its turn comes: null if so,
 * else the state it ends in (the plan switched off, the invoice deleted or booked meanwhile).
 */
export function sendRefusal(
  master: (AutoColumns & { deleted_at: string | null }) | undefined,
  child: ChildState | undefined,
): { state: RunState; reason: string | null } | null {
  if (!master || master.deleted_at)
    return { state: 'generated', reason: 'the plan was deleted before its invoice was sent' };
  if (!master.auto_send) return { state: 'generated', reason: 'auto_send was turned off before it was sent' };
  if (!child || child.deleted_at)
    return { state: 'skipped', reason: 'its invoice was deleted before it was sent' };
  if (child.status === 'booked')
    return { state: 'skipped', reason: 'its invoice was booked by someone else: the plan does not send it' };
  return null;
}
