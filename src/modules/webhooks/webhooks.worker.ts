import { randomUUID } from 'node:crypto';
import type { Db, DbKind } from '../../db/index.js';
import { LeasedWorker, silentLogger, type WorkerLogger } from '../../shared/job-loop.js';
import { decryptSecret, signatureHeader } from './webhooks.crypto.js';
import { LeaseKeeper } from './webhooks.leases.js';
import type { AttemptOutcome, ClaimedDelivery, RunRecord } from './webhooks.queue.js';
import * as queue from './webhooks.queue.repository.js';
import { loadClaimed } from './webhooks.read-model.js';
import { Sender } from './webhooks.sender.js';
import { guardedLookup, type Resolver } from './webhooks.ssrf.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Delay before each attempt of a delivery: the first goes out at once, then retries after
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (about 28 hours in all); then it has failed.
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

export type { WorkerLogger } from '../../shared/job-loop.js';

export interface WebhookWorkerOptions {
  /** SECRET_KEY: decrypts the signing secrets. */
  secretKey: string;
  /** WEBHOOK_ALLOW_PRIVATE: skip the address checks (tests, trusted networks). */
  allowPrivate: boolean;
  /** How often an idle worker looks for due deliveries (other processes' events, retries). */
  pollIntervalMs?: number;
  /** Webhooks served at once (one attempt in flight each). */
  concurrency?: number;
  /** Deliveries of one webhook claimed together and sent one after another. */
  runLength?: number;
  /** Limit of one attempt, connection to end of response. */
  timeoutMs?: number;
  /**
   * How long a claim holds unless renewed; a claim not renewed for that long belongs to a dead
   * worker and is taken over. Renewed by a heartbeat while the worker holds it.
   */
  leaseMs?: number;
  retryDelaysMs?: readonly number[];
  /** A webhook whose attempts all failed for this long is disabled. */
  disableAfterMs?: number;
  /** DNS for the address guard (tests). */
  resolve?: Resolver;
  logger?: WorkerLogger;
}

/** A killed worker's claims are taken over this soon; a live worker renews them (leases.ts). */
export const DEFAULT_LEASE_MS = 5 * SECOND;

/** Workers of this process, woken right after a request committed (see worker-hooks.ts). */
const local = new Set<WebhookWorker>();
export function wakeWebhookWorkers(): void {
  for (const w of local) w.wake();
}

/**
 * Delivers queued webhook messages: claims due deliveries (leases in the database, so any
 * number of workers in any number of processes may run), signs and POSTs each, and records
 * the outcome with the next attempt's time.
 */
export class WebhookWorker extends LeasedWorker<ClaimedDelivery[]> {
  private readonly opts: Required<Omit<WebhookWorkerOptions, 'resolve'>> & { resolve?: Resolver };
  private readonly sender: Sender;
  private readonly leases: LeaseKeeper;

  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
    options: WebhookWorkerOptions,
  ) {
    const timeoutMs = options.timeoutMs ?? 10 * SECOND;
    const opts = {
      pollIntervalMs: 100,
      concurrency: 16,
      runLength: 20,
      retryDelaysMs: DEFAULT_RETRY_DELAYS_MS,
      disableAfterMs: 5 * DAY,
      logger: silentLogger,
      ...options,
      timeoutMs,
      leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    };
    // The delivery log is pruned by the service's retention job (src/retention.ts).
    super({
      label: 'webhook worker',
      pollIntervalMs: opts.pollIntervalMs,
      concurrency: opts.concurrency,
      logger: opts.logger,
      local,
    });
    this.opts = opts;
    this.leases = new LeaseKeeper(db, this.opts.leaseMs, (err) =>
      this.opts.logger.warn({ err }, 'webhook worker: could not renew its claims'),
    );
    this.sender = new Sender({
      timeoutMs,
      ...(options.allowPrivate ? {} : { lookup: guardedLookup(options.resolve) }),
    });
  }

  protected override closed(): void {
    this.sender.close();
  }

  /** Claims what is due now (up to the concurrency) and delivers it; for tests and tools. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim(this.opts.concurrency);
    await Promise.all(byWebhook(claimed).map((run) => this.run(run)));
    return claimed.length;
  }

  /**
   * Leases runs of due deliveries of up to `webhooks` webhooks to this worker, in webhook and
   * event order. Exposed so tests can play a worker that dies holding a claim.
   */
  async claim(webhooks: number): Promise<ClaimedDelivery[]> {
    const now = Date.now();
    const token = randomUUID();
    const ids = await queue.claimDue(this.db, this.kind, {
      now: new Date(now).toISOString(),
      leaseUntil: new Date(now + this.opts.leaseMs).toISOString(),
      token,
      webhooks,
      runLength: this.opts.runLength,
    });
    return loadClaimed(this.db, ids, token);
  }

  // The shell (LeasedWorker): an idle worker asks with a read before it claims (a write); a
  // freed slot looks again at once, as the webhook's next deliveries may be waiting for it.
  protected isDue(nowIso: string): Promise<boolean> {
    return queue.hasDue(this.db, nowIso);
  }

  /** Runs of due deliveries of up to `free` webhooks, one run per webhook. */
  protected async claimFor(free: number): Promise<ClaimedDelivery[][]> {
    return byWebhook(await this.claim(free));
  }

  protected runOne(run: ClaimedDelivery[]): Promise<void> {
    return this.run(run);
  }

  private secretsOf(d: ClaimedDelivery, now: number): string[] {
    const secrets = [decryptSecret(this.opts.secretKey, d.secret_enc, d.account_id)];
    if (
      d.previous_secret_enc &&
      d.previous_secret_expires_at &&
      Date.parse(d.previous_secret_expires_at) > now
    )
      secrets.push(decryptSecret(this.opts.secretKey, d.previous_secret_enc, d.account_id));
    return secrets;
  }

  /** Signs and POSTs one delivery. */
  private async send(d: ClaimedDelivery, now: Date): Promise<Omit<AttemptOutcome, 'retryAt'>> {
    let secrets: string[];
    try {
      secrets = this.secretsOf(d, now.getTime());
    } catch (err) {
      this.opts.logger.error(
        { err, webhookId: d.webhook_id },
        'webhook secret cannot be decrypted (SECRET_KEY changed?)',
      );
      return {
        delivery: d,
        ok: false,
        responseStatus: null,
        latencyMs: null,
        error: 'signing secret cannot be decrypted',
      };
    }
    // The stored payload is already the resource's JSON: splice it in rather than re-encode.
    const body = `{"id":${JSON.stringify(d.message_id)},"event":${JSON.stringify(d.kind)},"occurred_at":${JSON.stringify(d.occurred_at)},"data":${d.payload}}`;
    const r = await this.sender.send(
      d.url,
      {
        'webhook-id': d.message_id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signatureHeader(secrets, d.message_id, now, body),
      },
      body,
    );
    return { delivery: d, ok: r.ok, responseStatus: r.status, latencyMs: r.latencyMs, error: r.error };
  }

  /**
   * Sends one webhook's claimed deliveries in order, recording each outcome as soon as it is
   * known: a delivery the receiver accepted is marked delivered before the next goes out, so
   * a worker killed mid-run sends again at most the one in flight. The run stops at the first
   * failure (the rest are handed back and claimed again at once, each then on its own retry
   * schedule), when the worker stops, or when its claim is no longer safely held (see
   * leases.ts). Never throws: if recording fails the run stops, its leases expire and the
   * deliveries are sent again (at least once).
   */
  private async run(deliveries: ClaimedDelivery[]): Promise<void> {
    const first = deliveries[0];
    if (!first) return;
    const lease = this.leases.hold(
      deliveries.map((d) => d.id),
      first.lease_token,
      first.lease_until,
    );
    try {
      if (!first.active || first.integration_revoked_at) {
        const error = first.active ? 'integration was revoked' : 'webhook is disabled';
        await this.record({
          webhookId: first.webhook_id,
          attempted: [],
          released: [],
          abandoned: { deliveries, error },
        });
        return;
      }
      for (const [i, d] of deliveries.entries()) {
        if (i > 0 && (this.stopping || !lease.holds())) {
          await this.record({ webhookId: first.webhook_id, attempted: [], released: deliveries.slice(i) });
          return;
        }
        const outcome = await this.attempt(d);
        // Settled from here: renewing it further could only keep a dead claim alive.
        const released = outcome.ok ? [] : deliveries.slice(i + 1);
        lease.drop([d.id, ...released.map((r) => r.id)]);
        const recorded = await this.record({ webhookId: first.webhook_id, attempted: [outcome], released });
        if (!outcome.ok || !recorded) return;
      }
    } finally {
      lease.end();
    }
  }

  /** One attempt of one delivery, with the time of the next should it have failed. */
  private async attempt(d: ClaimedDelivery): Promise<AttemptOutcome> {
    let outcome: Omit<AttemptOutcome, 'retryAt'>;
    try {
      outcome = await this.send(d, new Date());
    } catch (err) {
      // Not a receiver's failure (those are outcomes, not throws): a fault of ours, worth a line.
      this.opts.logger.error({ err, deliveryId: d.id }, 'webhook attempt failed unexpectedly');
      outcome = { delivery: d, ok: false, responseStatus: null, latencyMs: null, error: String(err) };
    }
    const delays = this.opts.retryDelaysMs;
    const delay = outcome.ok || d.schedule_step >= delays.length ? null : delays[d.schedule_step]!;
    return { ...outcome, retryAt: delay === null ? null : new Date(Date.now() + delay).toISOString() };
  }

  /**
   * Commits outcomes; false when that failed or an attempted delivery's claim was no longer
   * ours (taken over after the lease ran out, or the webhook deleted): the run goes no further.
   */
  private async record(record: RunRecord): Promise<boolean> {
    try {
      const now = Date.now();
      const { disabled, lost } = await queue.recordRun(this.db, this.kind, record, {
        now: new Date(now).toISOString(),
        disableBefore: new Date(now - this.opts.disableAfterMs).toISOString(),
        disableReason: `every delivery failed for ${formatSpan(this.opts.disableAfterMs)}`,
      });
      if (disabled)
        this.opts.logger.warn({ webhookId: record.webhookId }, 'webhook disabled after failing continuously');
      if (lost)
        this.opts.logger.warn(
          { webhookId: record.webhookId },
          'webhook delivery was taken over by another worker while in flight',
        );
      return !lost;
    } catch (err) {
      this.opts.logger.error(
        { err, webhookId: record.webhookId },
        'webhook deliveries could not be recorded',
      );
      return false;
    }
  }
}

/** Claimed deliveries (ordered by webhook, then event) split into one run per webhook. */
function byWebhook(claimed: ClaimedDelivery[]): ClaimedDelivery[][] {
  const runs: ClaimedDelivery[][] = [];
  for (const d of claimed) {
    const last = runs.at(-1);
    if (last && last[0]!.webhook_id === d.webhook_id) last.push(d);
    else runs.push([d]);
  }
  return runs;
}

function formatSpan(ms: number): string {
  if (ms >= DAY && ms % DAY === 0) return `${ms / DAY} days`;
  if (ms >= HOUR) return `${Math.round(ms / HOUR)} h`;
  return `${Math.round(ms / SECOND)} s`;
}
