import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

export type DbConfig = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema?: string };

export interface Config {
  readonly port: number;
  readonly host: string;
  /** HTTP server processes for `npm start`: 1 serves from the one process (see cluster.ts). */
  readonly workers: number;
  readonly db: DbConfig;
  readonly seedDemo: boolean;
  readonly logLevel: string;
  /** Largest JSON body accepted, in bytes. */
  readonly bodyLimit: number;
  /** Largest uploaded file accepted, in bytes. */
  readonly uploadLimit: number;
  /** Public origin used in Location/Link headers and the OpenAPI servers list. */
  readonly publicUrl: string;
  /** Run the webhook delivery worker inside the API process. */
  readonly runWorker: boolean;
  readonly webhookAllowPrivate: boolean;
  /** MAILBOX_ALLOW_PRIVATE: mailboxes may be on loopback or private addresses (development, tests). */
  readonly mailboxAllowPrivate: boolean;
  /** How often an idle webhook worker looks for due deliveries, in ms. */
  readonly webhookPollMs: number;
  /** DUNNING_AUTO_RUN: the background work runs dunning once a day for every account. */
  readonly dunningAutoRun: boolean;
  /** RECURRING_AUTO_RUN: the background work makes (and sends) the invoices of recurring plans with auto_generate. */
  readonly recurringAutoRun: boolean;
  /** Webhook deliveries in flight at once per worker process. */
  readonly webhookConcurrency: number;
  /** Key material for encrypting secrets at rest (webhook signing keys). */
  readonly secretKey: string;
  readonly tokenTtlSeconds: number;
  /** Requests per minute per integration; 0 turns rate limiting off. */
  readonly rateLimitPerMinute: number;
  /** Memory for list pages kept to answer unchanged lists again (SQLite), in MB; 0: none. */
  readonly pageCacheMb: number;
  /** Worker threads per server process that read uploaded documents (data extraction). */
  readonly extractionThreads: number;
  /** Wall time of reading one document; the thread is ended beyond it. */
  readonly extractionTimeoutMs: number;
  /** JavaScript heap of one extraction thread, in MB. */
  readonly extractionMemoryMb: number;
  /** Bytes the streams of an uploaded PDF may decompress to before extraction gives up. */
  readonly extractionMaxDecodedBytes: number;
  /** Pages of a PDF whose text is read; beyond them the document is flagged `pages_truncated`. */
  readonly extractionMaxPages: number;
  /** Documents OCR reads at once per worker process (one thread and about one core each). */
  readonly ocrThreads: number;
  /** Wall time of the OCR of one document (all its pages); beyond it the attempt fails. */
  readonly ocrTimeoutMs: number;
  /** How long a request holds its Idempotency-Key before another may take it over. */
  readonly idempotencyLeaseSeconds: number;
  /** Time a request (headers and body) may take to arrive; 408 beyond it. */
  readonly requestTimeoutSeconds: number;
  /** Longest a stop (SIGTERM, SIGINT) takes, exit included (DRAIN_LIMIT_SECONDS). */
  readonly drainLimitMs: number;
  /**
   * Which proxies' X-Forwarded-For/-Proto/-Host to believe (TRUST_PROXY), as Fastify's
   * `trustProxy` takes it: false (none), a number of hops, or addresses and CIDR ranges.
   */
  readonly trustProxy: false | number | string[];
  /** Finished webhook deliveries (the delivery log) are kept this many days (retention job). */
  readonly webhookDeliveryRetentionDays: number;
  /** Change-feed entries and events are kept this many days (CHANGE_FEED_RETENTION_DAYS). */
  readonly changeFeedRetentionDays: number;
  /** Browser origins allowed to call the API (CORS_ORIGINS); `*` any; none by default. */
  readonly corsOrigins: readonly string[];
  /** NODE_ENV=production: refuses to start with a missing or weak SECRET_KEY. */
  readonly production: boolean;
  /** Things worth one warning at start-up (a weak SECRET_KEY outside production). */
  readonly warnings: readonly string[];
  /** Outgoing mail (SMTP_URL, MAIL_FROM, DKIM_*); null: sending answers 503 (docs/mail.md). */
  readonly mail: MailConfig | null;
}

export interface MailConfig {
  /** smtp:// (STARTTLS when the relay offers it) or smtps:// (TLS from the start), with credentials. */
  readonly smtpUrl: string;
  /** The From address of every message (the account's e-mail goes in Reply-To). */
  readonly from: string;
  readonly dkim: {
    readonly domainName: string;
    readonly keySelector: string;
    readonly privateKey: string;
  } | null;
}

export const API_PREFIX = '/api/v1';

/** A configuration value that cannot be read: start-up stops with this message as one line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const BOOLEANS: Record<string, boolean> = {
  true: true,
  false: false,
  '1': true,
  '0': false,
  yes: true,
  no: false,
  on: true,
  off: false,
};

// An unreadable value is refused rather than guessed: `SEED_DEMO=flase` must not seed.
function bool(name: string, v: string | undefined, dflt: boolean): boolean {
  if (v === undefined || v === '') return dflt;
  const b = BOOLEANS[v.trim().toLowerCase()];
  if (b === undefined) throw new ConfigError(`${name} must be true/false/1/0/yes/no/on/off, got "${v}"`);
  return b;
}

function int(
  name: string,
  v: string | undefined,
  dflt: number,
  max = Number.MAX_SAFE_INTEGER,
  min = 0,
): number {
  if (v === undefined || v === '') return dflt;
  // Digits only: Number() would also take "1e3", "0x10" and " 12 ".
  const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
  // Below the least value that works is refused, not raised to it: WEBHOOK_CONCURRENCY=0 is
  // more likely a wish to stop deliveries than a wish for one at a time.
  if (!Number.isSafeInteger(n) || n > max || n < min)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${v}"`);
  return n;
}

/** The longest delay a Node timer takes (2^31 - 1 ms); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;
const MAX_TIMER_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function oneOf(name: string, v: string | undefined, allowed: string[], dflt: string): string {
  if (v === undefined || v === '') return dflt;
  if (!allowed.includes(v)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${v}"`);
  return v;
}

function origin(name: string, v: string): string {
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${v}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${v}"`);
  return v.replace(/\/$/, '');
}

/** CORS_ORIGINS: comma-separated origins (`https://app.example`), or `*` for any. */
function origins(name: string, v: string | undefined): string[] {
  const list = (v ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  return list.map((o) => {
    if (o === '*') return o;
    const clean = origin(name, o);
    if (new URL(clean).origin !== clean)
      throw new ConfigError(`${name} takes origins (scheme://host[:port]) only, got "${o}"`);
    return clean;
  });
}

/** The value the service used when SECRET_KEY was not set: published, so it protects nothing. */
export const INSECURE_DEFAULT_SECRET_KEY = 'dev-only-insecure-secret-key-change-me';
const MIN_SECRET_KEY_LENGTH = 32;

/** Why a SECRET_KEY is unfit for production, or null. */
function secretKeyProblem(key: string | undefined): string | null {
  if (!key) return 'SECRET_KEY is not set';
  if (key === INSECURE_DEFAULT_SECRET_KEY) return 'SECRET_KEY is the published default value';
  if (key.length < MIN_SECRET_KEY_LENGTH)
    return `SECRET_KEY is shorter than ${MIN_SECRET_KEY_LENGTH} characters`;
  return null;
}

/** SMTP_URL and its companions; without SMTP_URL no mail is sent (and none queued). */
function mailConfig(env: NodeJS.ProcessEnv): MailConfig | null {
  const url = env.SMTP_URL;
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:')
    throw new ConfigError(`SMTP_URL must be an smtp:// or smtps:// URL, got "${parsed.protocol}"`);
  const from = env.MAIL_FROM;
  if (!from || !/^[^\s@<>]+@[^\s@<>]+$/.test(from))
    throw new ConfigError(
      'MAIL_FROM must be an e-mail address (the sender of every message) when SMTP_URL is set',
    );
  const { DKIM_DOMAIN: domainName, DKIM_SELECTOR: keySelector, DKIM_PRIVATE_KEY: key } = env;
  const dkimSet = [domainName, keySelector, key].filter(Boolean).length;
  if (dkimSet > 0 && dkimSet < 3)
    throw new ConfigError('DKIM signing needs all of DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY');
  // A PEM key given on one line with literal \n, as environment files often hold it.
  const dkim =
    dkimSet === 3
      ? { domainName: domainName!, keySelector: keySelector!, privateKey: key!.replace(/\\n/g, '\n') }
      : null;
  return { smtpUrl: url, from, dkim };
}

/**
 * TRUST_PROXY: unset or `false`, none; a number, that many proxies in front; else addresses
 * and CIDR ranges, comma-separated (`loopback`, `linklocal`, `uniquelocal` name ranges).
 * `true` (every sender) is refused: any client could then choose its own address.
 */
function trustProxy(v: string | undefined): false | number | string[] {
  if (v === undefined || v === '' || /^(false|0|no|off)$/i.test(v)) return false;
  if (/^\d+$/.test(v)) return int('TRUST_PROXY', v, 0, 100);
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.find((s) => {
    if (/^(loopback|linklocal|uniquelocal)$/i.test(s)) return false;
    const [address, bits, ...more] = s.split('/');
    return more.length > 0 || isIP(address!) === 0 || (bits !== undefined && !/^\d{1,3}$/.test(bits));
  });
  if (list.length === 0 || bad !== undefined)
    throw new ConfigError(
      `TRUST_PROXY must be false, a number of proxies, or addresses/CIDR ranges separated by commas, got "${v}"`,
    );
  return list;
}

/** `postgres://…` selects PostgreSQL; `file:PATH` or a plain path selects another SQLite file. */
export function parseDatabaseUrl(url: string | undefined): DbConfig {
  if (!url) return { kind: 'sqlite', file: resolve('data', 'app.sqlite') };
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'postgres', url };
  if (url === ':memory:') return { kind: 'sqlite', file: ':memory:' };
  return { kind: 'sqlite', file: resolve(url.replace(/^file:/, '')) };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const port = int('PORT', env.PORT, 3000, 65535);
  const host = env.HOST || '0.0.0.0';
  const production = env.NODE_ENV === 'production';
  const secretProblem = secretKeyProblem(env.SECRET_KEY);
  // Webhook signing secrets are encrypted with it: a known key leaves them readable to anyone
  // who gets hold of the database.
  if (secretProblem && production && !overrides.secretKey)
    throw new ConfigError(
      `${secretProblem}; with NODE_ENV=production set a random SECRET_KEY of at least ${MIN_SECRET_KEY_LENGTH} characters`,
    );
  const workers = int('WORKERS', env.WORKERS, 1) || availableParallelism();
  const config: Config = {
    port,
    host,
    workers,
    db: parseDatabaseUrl(env.DATABASE_URL),
    seedDemo: bool('SEED_DEMO', env.SEED_DEMO, true),
    logLevel: oneOf('LOG_LEVEL', env.LOG_LEVEL, LOG_LEVELS, 'info'),
    bodyLimit: int('BODY_LIMIT', env.BODY_LIMIT, 1024 * 1024),
    uploadLimit: int('UPLOAD_LIMIT', env.UPLOAD_LIMIT, 20 * 1024 * 1024),
    publicUrl: origin('PUBLIC_URL', env.PUBLIC_URL || `http://localhost:${port}`),
    runWorker: bool('RUN_WORKER', env.RUN_WORKER, true),
    webhookAllowPrivate: bool('WEBHOOK_ALLOW_PRIVATE', env.WEBHOOK_ALLOW_PRIVATE, false),
    mailboxAllowPrivate: bool('MAILBOX_ALLOW_PRIVATE', env.MAILBOX_ALLOW_PRIVATE, false),
    webhookPollMs: int('WEBHOOK_POLL_MS', env.WEBHOOK_POLL_MS, 100, MAX_TIMER_MS),
    dunningAutoRun: bool('DUNNING_AUTO_RUN', env.DUNNING_AUTO_RUN, false),
    recurringAutoRun: bool('RECURRING_AUTO_RUN', env.RECURRING_AUTO_RUN, true),
    webhookConcurrency: int('WEBHOOK_CONCURRENCY', env.WEBHOOK_CONCURRENCY, 16, undefined, 1),
    secretKey: env.SECRET_KEY || INSECURE_DEFAULT_SECRET_KEY,
    tokenTtlSeconds: int('TOKEN_TTL_SECONDS', env.TOKEN_TTL_SECONDS, 0),
    rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE, 1200),
    pageCacheMb: int('PAGE_CACHE_MB', env.PAGE_CACHE_MB, 32),
    // Two threads per process share the CPUs with it; with several server processes, the CPUs
    // per process (at least one): each thread holds 100–200 MB while it reads (issue 44).
    extractionThreads: int(
      'EXTRACTION_THREADS',
      env.EXTRACTION_THREADS,
      Math.max(1, Math.min(2, Math.floor(availableParallelism() / workers))),
      undefined,
      1,
    ),
    extractionTimeoutMs: int('EXTRACTION_TIMEOUT_MS', env.EXTRACTION_TIMEOUT_MS, 10_000, MAX_TIMER_MS, 100),
    extractionMemoryMb: int('EXTRACTION_MEMORY_MB', env.EXTRACTION_MEMORY_MB, 256, undefined, 32),
    extractionMaxDecodedBytes: int(
      'EXTRACTION_MAX_DECODED_BYTES',
      env.EXTRACTION_MAX_DECODED_BYTES,
      64 * 1024 * 1024,
    ),
    extractionMaxPages: int('EXTRACTION_MAX_PAGES', env.EXTRACTION_MAX_PAGES, 50, undefined, 1),
    ocrThreads: int('OCR_THREADS', env.OCR_THREADS, 1, undefined, 1),
    ocrTimeoutMs: 1000 * int('OCR_TIMEOUT_SECONDS', env.OCR_TIMEOUT_SECONDS, 300, MAX_TIMER_SECONDS, 1),
    idempotencyLeaseSeconds: int('IDEMPOTENCY_LEASE_SECONDS', env.IDEMPOTENCY_LEASE_SECONDS, 30),
    requestTimeoutSeconds: int(
      'REQUEST_TIMEOUT_SECONDS',
      env.REQUEST_TIMEOUT_SECONDS,
      30,
      MAX_TIMER_SECONDS,
      1,
    ),
    drainLimitMs: 1000 * int('DRAIN_LIMIT_SECONDS', env.DRAIN_LIMIT_SECONDS, 15, 3600, 3),
    trustProxy: trustProxy(env.TRUST_PROXY),
    webhookDeliveryRetentionDays: int(
      'WEBHOOK_DELIVERY_RETENTION_DAYS',
      env.WEBHOOK_DELIVERY_RETENTION_DAYS,
      30,
      36_500,
      1,
    ),
    changeFeedRetentionDays: int('CHANGE_FEED_RETENTION_DAYS', env.CHANGE_FEED_RETENTION_DAYS, 90, 36_500, 1),
    corsOrigins: origins('CORS_ORIGINS', env.CORS_ORIGINS),
    production,
    warnings:
      secretProblem && !overrides.secretKey
        ? [
            `${secretProblem}: secrets stored encrypted are not protected; set SECRET_KEY (required with NODE_ENV=production)`,
          ]
        : [],
    mail: mailConfig(env),
    ...overrides,
  };
  return Object.freeze(config);
}
