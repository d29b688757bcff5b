import { randomUUID } from 'node:crypto';
import type { Db, DbKind } from '../../db/index.js';
import { decryptSecret, signatureHeader } from './webhooks.crypto.js';
import * as queue from './webhooks.queue.js';
import type { ClaimedDelivery } from './webhooks.queue.js';
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

export interface WorkerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface WebhookWorkerOptions {
  /** SECRET_KEY: decrypts the signing secrets. */
  secretKey: string;
  /** WEBHOOK_ALLOW_PRIVATE: skip the address checks (tests, trusted networks). */
  allowPrivate: boolean;
  /** How often an idle worker looks for due deliveries (other processes' events, retries). */
  pollIntervalMs?: number;
  /** Attempts in flight at once (each to a different webhook). */
  concurrency?: number;
  /** Limit of one attempt, connection to end of response. */
  timeoutMs?: number;
  /** How long a claim holds; a claim older than that belongs to a dead worker. */
  leaseMs?: number;
  retryDelaysMs?: readonly number[];
  /** A webhook whose attempts all failed for this long is disabled. */
  disableAfterMs?: number;
  /** Finished deliveries are kept this long for the delivery log. */
  retentionMs?: number;
  /** DNS for the address guard (tests). */
  resolve?: Resolver;
  logger?: WorkerLogger;
}

const silent: WorkerLogger = { info() {}, warn() {}, error() {} };

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
export class WebhookWorker {
  private readonly opts: Required<Omit<WebhookWorkerOptions, 'resolve'>> & { resolve?: Resolver };
  private readonly sender: Sender;
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private woken = false;
  private wakeUp: (() => void) | undefined;
  private idle = false;
  private lastPrune = 0;

  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
    options: WebhookWorkerOptions,
  ) {
    const timeoutMs = options.timeoutMs ?? 10 * SECOND;
    this.opts = {
      pollIntervalMs: 100,
      concurrency: 16,
      retryDelaysMs: DEFAULT_RETRY_DELAYS_MS,
      disableAfterMs: 5 * DAY,
      retentionMs: 30 * DAY,
      logger: silent,
      ...options,
      timeoutMs,
      leaseMs: options.leaseMs ?? timeoutMs + 30 * SECOND,
    };
    this.sender = new Sender({
      timeoutMs,
      ...(options.allowPrivate ? {} : { lookup: guardedLookup(options.resolve) }),
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    local.add(this);
    this.loopDone = this.loop();
  }

  /** Stops claiming and waits for the attempts in flight to finish. */
  async stop(): Promise<void> {
    this.running = false;
    local.delete(this);
    this.wake();
    await this.loopDone;
    await Promise.allSettled([...this.inFlight]);
    this.sender.close();
  }

  /** Look for due deliveries now rather than at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Claims what is due now (up to the concurrency) and delivers it; for tests and tools. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim(this.opts.concurrency);
    await Promise.all(claimed.map((d) => this.attempt(d)));
    return claimed.length;
  }

  /** Leases due deliveries to this worker. Exposed so tests can play a worker that dies. */
  async claim(limit: number): Promise<ClaimedDelivery[]> {
    const now = Date.now();
    const token = randomUUID();
    const ids = await queue.claimDue(this.db, this.kind, {
      now: new Date(now).toISOString(),
      leaseUntil: new Date(now + this.opts.leaseMs).toISOString(),
      token,
      limit,
    });
    return queue.loadClaimed(this.db, ids, token);
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const free = this.opts.concurrency - this.inFlight.size;
      if (free > 0) {
        try {
          await this.fill(free);
          await this.maybePrune();
        } catch (err) {
          this.opts.logger.error({ err }, 'webhook worker: claiming failed');
        }
      }
      if (!this.running) break;
      await this.sleep();
    }
  }

  private async fill(free: number): Promise<void> {
    // An idle worker first asks with a read, and claims (a write) only when something is due.
    if (this.idle && !(await queue.hasDue(this.db, new Date().toISOString()))) return;
    const claimed = await this.claim(free);
    this.idle = claimed.length === 0;
    for (const d of claimed) {
      const p: Promise<void> = this.attempt(d).finally(() => {
        this.inFlight.delete(p);
        // The next delivery of the same webhook may be waiting for this one.
        this.wake();
      });
      this.inFlight.add(p);
    }
    // More may be due than we had room for: look again right away.
    if (claimed.length === free && claimed.length > 0) this.woken = true;
  }

  private sleep(): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.opts.pollIntervalMs);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wakeUp = undefined;
        self.woken = false;
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private async maybePrune(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPrune < 10 * MINUTE) return;
    this.lastPrune = now;
    await queue.pruneDeliveries(this.db, new Date(now - this.opts.retentionMs).toISOString());
  }

  private secretsOf(d: ClaimedDelivery, now: number): string[] {
    const secrets = [decryptSecret(this.opts.secretKey, d.secret_enc, d.account_id)];
    if (d.previous_secret_enc && d.previous_secret_expires_at && Date.parse(d.previous_secret_expires_at) > now)
      secrets.push(decryptSecret(this.opts.secretKey, d.previous_secret_enc, d.account_id));
    return secrets;
  }

  /** One attempt of one claimed delivery, with its outcome recorded. Never throws. */
  async attempt(d: ClaimedDelivery): Promise<void> {
    const log = this.opts.logger;
    try {
      if (!d.active) return await queue.failClaimed(this.db, d, 'webhook is disabled');
      if (d.integration_revoked_at) return await queue.failClaimed(this.db, d, 'integration was revoked');
      const at = new Date();
      let outcome: queue.AttemptOutcome;
      let ok = false;
      let secrets: string[] | undefined;
      try {
        secrets = this.secretsOf(d, at.getTime());
      } catch (err) {
        log.error({ err, webhookId: d.webhook_id }, 'webhook secret cannot be decrypted (SECRET_KEY changed?)');
      }
      if (!secrets) {
        outcome = { responseStatus: null, latencyMs: null, error: 'signing secret cannot be decrypted' };
      } else {
        // The stored payload is already the resource's JSON: splice it in rather than re-encode.
        const body = `{"id":${JSON.stringify(d.message_id)},"event":${JSON.stringify(d.kind)},"occurred_at":${JSON.stringify(d.occurred_at)},"data":${d.payload}}`;
        const headers = {
          'webhook-id': d.message_id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signatureHeader(secrets, d.message_id, at, body),
        };
        const r = await this.sender.send(d.url, headers, body);
        ok = r.ok;
        outcome = { responseStatus: r.status, latencyMs: r.latencyMs, error: r.error };
      }
      const now = new Date();
      if (ok) {
        await queue.markDelivered(this.db, d, outcome, now.toISOString());
        return;
      }
      const delays = this.opts.retryDelaysMs;
      const next = d.schedule_step < delays.length ? delays[d.schedule_step]! : null;
      const { disabled } = await queue.markFailed(this.db, d, outcome, {
        now: now.toISOString(),
        retryAt: next === null ? null : new Date(now.getTime() + next).toISOString(),
        disableBefore: new Date(now.getTime() - this.opts.disableAfterMs).toISOString(),
        disableReason: `every delivery failed for ${Math.round(this.opts.disableAfterMs / HOUR)} h`,
      });
      if (disabled) log.warn({ webhookId: d.webhook_id }, 'webhook disabled after failing continuously');
      if (next !== null && next <= this.opts.pollIntervalMs) this.wake();
    } catch (err) {
      // The lease expires and the delivery is tried again: nothing is lost.
      log.error({ err, deliveryId: d.id }, 'webhook attempt could not be recorded');
    }
  }
}
