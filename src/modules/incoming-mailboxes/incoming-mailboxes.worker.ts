import { createHash, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { ImapFlow } from 'imapflow';
import type { Db, DbKind } from '../../db/index.js';
import { LeasedWorker, silentLogger, type WorkerLogger } from '../../shared/job-loop.js';
import { nowIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import type { Upload } from '../files/files.public.js';
import {
  createInvoice,
  type Extractor,
  findByFileMd5,
} from '../incoming-invoices/incoming-invoices.public.js';
import { decryptPassword } from './incoming-mailboxes.crypto.js';
import {
  type DocumentPart,
  documentParts,
  type MimeNode,
  messageKey,
  retryDelayMs,
  senderAllowed,
} from './incoming-mailboxes.domain.js';
import { mailboxAddresses } from './incoming-mailboxes.host.js';
import * as repo from './incoming-mailboxes.repository.js';

const SECOND = 1000;

export interface MailboxWorkerOptions {
  secretKey: string;
  extractor: Extractor;
  /** Between two polls of a mailbox that worked. */
  intervalMs?: number;
  /** How often the worker looks for due mailboxes. */
  pollIntervalMs?: number;
  /** Mailboxes polled at once. */
  concurrency?: number;
  leaseMs?: number;
  /** First wait after a failed poll (doubling, at most an hour). */
  retryBaseMs?: number;
  /** Bigger attachments are logged and left. */
  maxFileBytes?: number;
  /** IMAP connection and greeting timeouts. */
  timeoutMs?: number;
  /**
   * After a poll, how long to stay connected in IMAP IDLE (where the server offers it) and take
   * mail as it arrives; 0 turns IDLE off and only polls. Holds one of `concurrency` slots.
   */
  idleMs?: number;
  /** Connect to loopback and private addresses too (MAILBOX_ALLOW_PRIVATE; development, tests). */
  allowPrivate?: boolean;
  logger?: WorkerLogger;
}

interface Taken {
  documents: number;
  duplicates: number;
  skipped: number;
}

/**
 * Polls the connected IMAP mailboxes: claims due ones as leases in the database (any number of
 * workers in any number of processes), reads each new message's documents into incoming
 * invoices, records the message as taken (by Message-ID) and flags or moves it. A mailbox whose
 * poll fails (wrong password, server down) records its error and is tried again after a growing
 * back-off; the others are polled as usual.
 */
export class MailboxWorker extends LeasedWorker<repo.MailboxRow> {
  private readonly opts: Required<MailboxWorkerOptions>;

  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
    options: MailboxWorkerOptions,
  ) {
    const opts = {
      intervalMs: 60 * SECOND,
      pollIntervalMs: 5 * SECOND,
      concurrency: 2,
      leaseMs: 30 * SECOND,
      retryBaseMs: 60 * SECOND,
      maxFileBytes: 20 * 1024 * 1024,
      timeoutMs: 20 * SECOND,
      idleMs: 60 * SECOND,
      allowPrivate: false,
      logger: silentLogger,
      ...options,
    };
    // A mailbox is due again only after its interval: look before every claim, and go round at
    // the poll interval rather than when a poll ends.
    super({
      label: 'mailbox intake',
      pollIntervalMs: opts.pollIntervalMs,
      concurrency: opts.concurrency,
      logger: opts.logger,
      lookFirst: 'always',
      eager: false,
    });
    this.opts = opts;
  }

  /** Polls every due mailbox once (without staying in IDLE) and waits for them; for tests and tools. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim(100);
    await Promise.all(claimed.map((m) => this.poll(m, 0)));
    return claimed.length;
  }

  private claim(limit: number) {
    const now = Date.now();
    return repo.claimDue(this.db, this.kind, {
      now: new Date(now).toISOString(),
      leaseUntil: new Date(now + this.opts.leaseMs).toISOString(),
      token: randomUUID(),
      limit,
    });
  }

  protected isDue(nowIso: string): Promise<boolean> {
    return repo.hasDue(this.db, nowIso);
  }

  protected claimFor(free: number): Promise<repo.MailboxRow[]> {
    return this.claim(free);
  }

  protected runOne(m: repo.MailboxRow): Promise<void> {
    return this.poll(m, this.opts.idleMs);
  }

  /** One poll of one mailbox; never throws. */
  private async poll(m: repo.MailboxRow, idleMs: number): Promise<void> {
    const token = m.lease_token!;
    const heartbeat = setInterval(() => {
      const until = new Date(Date.now() + this.opts.leaseMs).toISOString();
      repo.renew(this.db, m.id, token, until).catch(() => {});
    }, this.opts.leaseMs / 3);
    heartbeat.unref();
    const started = Date.now();
    try {
      const taken = await this.read(m, idleMs);
      await repo.settle(this.db, m.id, token, {
        status: 'ok',
        last_error: null,
        failures: 0,
        last_polled_at: nowIso(),
        next_poll_at: new Date(started + this.opts.intervalMs).toISOString(),
      });
      this.opts.logger.info({ mailboxId: m.id, ...taken }, 'mailbox polled');
    } catch (err) {
      const failures = Number(m.failures) + 1;
      const detail = describe(err);
      await repo
        .insertLog(this.db, { account_id: m.account_id, mailbox_id: m.id, event: 'error', detail })
        .catch(() => {});
      await repo
        .settle(this.db, m.id, token, {
          status: 'error',
          last_error: detail,
          failures,
          last_polled_at: nowIso(),
          next_poll_at: new Date(Date.now() + retryDelayMs(failures, this.opts.retryBaseMs)).toISOString(),
        })
        .catch((e) => this.opts.logger.error({ err: e, mailboxId: m.id }, 'mailbox state not stored'));
      this.opts.logger.warn({ mailboxId: m.id, failures, error: detail }, 'mailbox poll failed');
    } finally {
      clearInterval(heartbeat);
    }
  }

  private async read(m: repo.MailboxRow, idleMs: number): Promise<Taken> {
    // Checked again at every poll, and the address checked is the one connected to: a name that
    // pointed outside when the mailbox was saved may point inside now.
    const [address] = await mailboxAddresses(m.host, this.opts.allowPrivate);
    const client = new ImapFlow({
      host: address!,
      servername: isIP(m.host) ? undefined : m.host,
      port: Number(m.port),
      secure: Boolean(m.tls),
      auth: { user: m.username, pass: decryptPassword(this.opts.secretKey, m.password_enc, m.account_id) },
      logger: false,
      connectionTimeout: this.opts.timeoutMs,
      greetingTimeout: this.opts.timeoutMs,
      socketTimeout: this.opts.timeoutMs * 3,
    });
    // A dropped connection is reported by the operation that fails; not by an 'error' event.
    client.on('error', () => {});
    const taken: Taken = { documents: 0, duplicates: 0, skipped: 0 };
    await client.connect();
    try {
      const lock = await client.getMailboxLock(m.folder);
      try {
        const idleUntil = Date.now() + idleMs;
        await this.takeNew(client, m, taken);
        // IDLE: the server says when mail arrives, so it is taken within seconds, not a poll
        // interval; without IDLE (or when the window ends) the next poll comes as scheduled.
        while (client.capabilities.has('IDLE') && Date.now() < idleUntil && !this.stopping) {
          if (!(await this.idleFor(client, idleUntil - Date.now()))) break;
          await this.takeNew(client, m, taken);
        }
      } finally {
        lock.release();
      }
    } finally {
      await client.logout().catch(() => client.close());
    }
    return taken;
  }

  /** Waits in IDLE until new mail arrives (true), the time is up or the worker stops (false). */
  private idleFor(client: ImapFlow, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (woke: boolean) => {
        clearTimeout(timer);
        clearInterval(stop);
        client.off('exists', onExists);
        resolve(woke);
      };
      const onExists = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      const stop = setInterval(() => this.stopping && done(false), 250);
      client.on('exists', onExists);
      // Ends when the next command breaks it (imapflow sends DONE first).
      client.idle().catch(() => done(false));
    });
  }

  /** Takes every message of the open folder not taken yet. */
  private async takeNew(client: ImapFlow, m: repo.MailboxRow, taken: Taken): Promise<void> {
    // Flagged mail was taken already; moved mail is gone from the folder.
    const uids =
      (await client.search(m.processed_action === 'flag' ? { seen: false } : { all: true }, {
        uid: true,
      })) || [];
    for (const uid of uids) {
      const msg = await client.fetchOne(String(uid), { envelope: true, bodyStructure: true }, { uid: true });
      if (!msg) continue;
      const from = msg.envelope?.from?.[0]?.address ?? null;
      const subject = msg.envelope?.subject ?? null;
      const messageId = messageKey(msg.envelope?.messageId, `uid:${m.folder}:${uid}`);
      const base = {
        account_id: m.account_id,
        mailbox_id: m.id,
        message_id: messageId,
        sender: from,
        subject,
      };
      if (await repo.messageTaken(this.db, m.id, messageId)) {
        await this.processed(client, m, uid);
        continue;
      }
      const allowed = senderAllowed(from ?? undefined, JSON.parse(m.allowed_senders) as string[]);
      const parts = allowed ? documentParts(msg.bodyStructure as MimeNode) : [];
      if (parts.length === 0) {
        await repo.insertLog(this.db, {
          ...base,
          event: 'skipped',
          detail: allowed ? 'no PDF, XML or image in the message' : 'sender not on the allow-list',
        });
        taken.skipped++;
      }
      let documents = 0;
      for (const part of parts) {
        const outcome = await this.takePart(client, m, uid, part, { messageId, from, subject });
        if (outcome === 'document') documents++;
        if (outcome === 'duplicate') taken.duplicates++;
      }
      taken.documents += documents;
      await repo.insertMessage(this.db, { ...base, documents });
      await this.processed(client, m, uid);
    }
  }

  /** Marks a taken message as the mailbox says: read (\Seen), or moved to the processed folder. */
  private async processed(client: ImapFlow, m: repo.MailboxRow, uid: number): Promise<void> {
    if (m.processed_action === 'move' && m.processed_folder) {
      await client.mailboxCreate(m.processed_folder).catch(() => {});
      await client.messageMove(String(uid), m.processed_folder, { uid: true });
    } else {
      await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
    }
  }

  private async takePart(
    client: ImapFlow,
    m: repo.MailboxRow,
    uid: number,
    part: DocumentPart,
    mail: { messageId: string; from: string | null; subject: string | null },
  ): Promise<'document' | 'duplicate' | 'skipped'> {
    const log = {
      account_id: m.account_id,
      mailbox_id: m.id,
      message_id: mail.messageId,
      sender: mail.from,
      subject: mail.subject,
      filename: part.filename,
    };
    if (part.size > this.opts.maxFileBytes * 1.4) {
      await repo.insertLog(this.db, { ...log, event: 'skipped', detail: 'larger than the upload limit' });
      return 'skipped';
    }
    const { content } = await client.download(String(uid), part.part, {
      uid: true,
      maxBytes: this.opts.maxFileBytes + 1,
    });
    const chunks: Buffer[] = [];
    for await (const c of content) chunks.push(c as Buffer);
    const data = Buffer.concat(chunks);
    if (data.length > this.opts.maxFileBytes || data.length === 0) {
      await repo.insertLog(this.db, {
        ...log,
        event: 'skipped',
        detail: data.length === 0 ? 'empty file' : 'larger than the upload limit',
      });
      return 'skipped';
    }
    const md5 = createHash('md5').update(data).digest('hex');
    const existing = await findByFileMd5(this.db, m.account_id, md5);
    if (existing) {
      await repo.insertLog(this.db, {
        ...log,
        event: 'duplicate',
        incoming_invoice_id: existing.id,
        detail: `the same file (MD5 ${md5}) is incoming invoice ${existing.id}`,
      });
      return 'duplicate';
    }
    const upload: Upload = {
      filename: part.filename,
      contentType: part.contentType,
      data,
      md5,
      sha256: createHash('sha256').update(data).digest('hex'),
      fields: {},
    };
    if (m.user_id === null)
      throw new Error('the user who connected the mailbox was removed: connect it again');
    const auth: AuthContext = {
      accountId: m.account_id,
      userId: m.user_id,
      integrationId: m.integration_id ?? 0,
      tokenId: 0,
      scopes: new Set(['incoming-invoice:write']),
    };
    const row = await createInvoice(
      this.db,
      auth,
      {},
      upload,
      (u) => this.opts.extractor.extract(u.data, u.contentType),
      { mailboxId: m.id, messageId: mail.messageId, sender: mail.from, subject: mail.subject },
    );
    await repo.insertLog(this.db, { ...log, event: 'document', incoming_invoice_id: row.id });
    return 'document';
  }
}

/** What a failed poll shows: the server's answer where it gave one. */
function describe(err: unknown): string {
  const e = err as { message?: string; responseText?: string; authenticationFailed?: boolean; code?: string };
  if (e?.authenticationFailed) return `authentication failed${e.responseText ? `: ${e.responseText}` : ''}`;
  const text = [e?.code, e?.responseText ?? e?.message].filter(Boolean).join(': ');
  return (text || String(err)).slice(0, 1000);
}
