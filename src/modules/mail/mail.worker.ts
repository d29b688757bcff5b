import { randomUUID } from 'node:crypto';
import type { MailConfig } from '../../config.js';
import type { Db, DbKind } from '../../db/index.js';
import { LeasedWorker, silentLogger, type WorkerLogger } from '../../shared/job-loop.js';
import { DEFAULT_RETRY_DELAYS_MS, retryDelay } from './mail.domain.js';
import * as repo from './mail.repository.js';
import { type MailTransport, smtpTransport } from './mail.transport.js';

export interface MailWorkerOptions {
  mail: MailConfig;
  /** How often an idle worker looks for due messages (other processes' sends, retries). */
  pollIntervalMs?: number;
  /** Messages in flight at once. */
  concurrency?: number;
  /**
   * How long a claim holds unless renewed (a heartbeat renews it every third of that while
   * the relay is talked to). A claim that ran out belongs to a dead worker.
   */
  leaseMs?: number;
  retryDelaysMs?: readonly number[];
  /** The relay (tests may pass another). */
  transport?: MailTransport;
  logger?: WorkerLogger;
}

export const DEFAULT_MAIL_LEASE_MS = 90_000;

/** Workers of this process, woken right after a message was queued. */
const local = new Set<MailWorker>();
export function wakeMailWorkers(): void {
  for (const w of local) w.wake();
}

/**
 * Sends queued messages: claims due jobs (leases in the database, so any number of workers in
 * any number of processes may run), sends each through the relay, and records the answer:
 * sent, failed for good (5xx), or due again after a back-off (4xx, relay unreachable).
 *
 * At most once: a job is leased to one worker at a time, and a job whose lease ran out (its
 * worker died while sending) is failed rather than sent again, since the relay may have taken
 * it (mail.repository.ts claimDue).
 */
export class MailWorker extends LeasedWorker<{ id: number; token: string }> {
  private readonly opts: Required<Omit<MailWorkerOptions, 'transport'>>;
  private readonly transport: MailTransport;

  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
    options: MailWorkerOptions,
  ) {
    const opts = {
      pollIntervalMs: 1000,
      concurrency: 4,
      leaseMs: DEFAULT_MAIL_LEASE_MS,
      retryDelaysMs: DEFAULT_RETRY_DELAYS_MS,
      logger: silentLogger,
      ...options,
    };
    const { pollIntervalMs, concurrency, logger } = opts;
    super({ label: 'mail worker', pollIntervalMs, concurrency, logger, local });
    this.opts = opts;
    this.transport = options.transport ?? smtpTransport(options.mail);
  }

  protected override closed(): void {
    this.transport.close();
  }

  /** Claims what is due now and sends it; for tests and tools. Returns the messages tried. */
  async runOnce(): Promise<number> {
    const { claimed, token } = await this.claim(this.opts.concurrency);
    await Promise.all(claimed.map((id) => this.run(id, token)));
    return claimed.length;
  }

  /** Leases due jobs to this worker; exposed so tests can play a worker that dies holding one. */
  async claim(limit: number): Promise<{ claimed: number[]; token: string }> {
    const now = Date.now();
    const token = randomUUID();
    const { claimed, abandoned } = await repo.claimDue(this.db, this.kind, {
      now: new Date(now).toISOString(),
      leaseUntil: new Date(now + this.opts.leaseMs).toISOString(),
      token,
      limit,
    });
    if (abandoned.length > 0)
      this.opts.logger.warn(
        { messages: abandoned },
        'mail worker: messages of a dead worker failed, not resent',
      );
    return { claimed, token };
  }

  protected isDue(nowIso: string): Promise<boolean> {
    return repo.hasDue(this.db, nowIso);
  }

  protected async claimFor(free: number): Promise<{ id: number; token: string }[]> {
    const { claimed, token } = await this.claim(free);
    return claimed.map((id) => ({ id, token }));
  }

  protected runOne(m: { id: number; token: string }): Promise<void> {
    return this.run(m.id, m.token);
  }

  /** One attempt of one message. Never throws. */
  private async run(id: number, token: string): Promise<void> {
    let renewal: NodeJS.Timeout | undefined;
    try {
      const loaded = await repo.loadForSending(this.db, id);
      if (!loaded) return;
      if (this.stopping) {
        await repo.releaseLease(this.db, id, token);
        return;
      }
      const { message: m, attachments } = loaded;
      // Keep the claim while the relay takes its time (a slow DATA, a large attachment).
      renewal = setInterval(
        () => {
          const until = new Date(Date.now() + this.opts.leaseMs).toISOString();
          repo.renewLease(this.db, id, token, until).catch((err: unknown) => {
            this.opts.logger.warn({ err, messageId: id }, 'mail worker: could not renew its claim');
          });
        },
        Math.max(10, Math.floor(this.opts.leaseMs / 3)),
      ).unref();
      const result = await this.transport.send({
        from: m.from_address,
        replyTo: m.reply_to,
        to: JSON.parse(m.to_addresses),
        cc: JSON.parse(m.cc_addresses),
        bcc: JSON.parse(m.bcc_addresses),
        subject: m.subject,
        text: m.text_body,
        html: m.html_body,
        messageId: m.message_id,
        attachments: attachments.map((a) => ({
          filename: a.filename,
          contentType: a.content_type,
          content: Buffer.from(a.data),
        })),
      });
      clearInterval(renewal);
      const now = new Date();
      let record: repo.AttemptRecord;
      if (result.ok) {
        record = {
          id,
          token,
          now: now.toISOString(),
          outcome: 'sent',
          smtpResponse: result.response,
          smtpCode: result.code,
          error: null,
        };
      } else {
        const delay = result.verdict === 'retry' ? retryDelay(m.attempts + 1, this.opts.retryDelaysMs) : null;
        record = {
          id,
          token,
          now: now.toISOString(),
          outcome: delay === null ? 'failed' : 'retry',
          smtpResponse: result.response,
          smtpCode: result.code,
          error:
            result.verdict === 'retry' && delay === null
              ? `gave up after ${m.attempts + 1} attempts: ${result.error}`
              : result.error,
          ...(delay === null ? {} : { retryAt: new Date(now.getTime() + delay).toISOString() }),
        };
      }
      const recorded = await repo.recordAttempt(this.db, record);
      if (!recorded)
        this.opts.logger.warn(
          { messageId: id },
          'mail worker: the claim was lost while the message was sent',
        );
    } catch (err) {
      // The database failed us: the lease runs out and the message is failed as abandoned.
      this.opts.logger.error({ err, messageId: id }, 'mail worker: attempt could not be recorded');
    } finally {
      clearInterval(renewal);
    }
  }
}
