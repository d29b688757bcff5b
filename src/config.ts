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
  /** How often an idle webhook worker looks for due deliveries, in ms. */
  readonly webhookPollMs: number;
  /** Webhook deliveries in flight at once per worker process. */
  readonly webhookConcurrency: number;
  /** Key material for encrypting secrets at rest (webhook signing keys). */
  readonly secretKey: string;
  readonly tokenTtlSeconds: number;
  /** Requests per minute per integration; 0 turns rate limiting off. */
  readonly rateLimitPerMinute: number;
  /** How long a request holds its Idempotency-Key before another may take it over. */
  readonly idempotencyLeaseSeconds: number;
  /** Worker threads per server process that read uploaded documents (data extraction). */
  readonly extractionThreads: number;
  /** Wall time of reading one document; the thread is ended beyond it. */
  readonly extractionTimeoutMs: number;
  /** JavaScript heap of one extraction thread, in MB. */
  readonly extractionMemoryMb: number;
  /** Bytes the streams of an uploaded PDF may decompress to before extraction gives up. */
  readonly extractionMaxDecodedBytes: number;
}

export const API_PREFIX = '/api/v1';

function bool(v: string | undefined, dflt: boolean): boolean {
  if (v === undefined || v === '') return dflt;
  return !['false', '0', 'no', 'off'].includes(v.toLowerCase());
}

function int(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${v}"`);
  return n;
}

/** `postgres://…` selects PostgreSQL; `file:PATH` or a plain path selects another SQLite file. */
export function parseDatabaseUrl(url: string | undefined): DbConfig {
  if (!url) return { kind: 'sqlite', file: resolve('data', 'app.sqlite') };
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'postgres', url };
  if (url === ':memory:') return { kind: 'sqlite', file: ':memory:' };
  return { kind: 'sqlite', file: resolve(url.replace(/^file:/, '')) };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const port = int('PORT', env.PORT, 3000);
  const host = env.HOST || '0.0.0.0';
  const config: Config = {
    port,
    host,
    workers: int('WORKERS', env.WORKERS, 1) || availableParallelism(),
    db: parseDatabaseUrl(env.DATABASE_URL),
    seedDemo: bool(env.SEED_DEMO, true),
    logLevel: env.LOG_LEVEL || 'info',
    bodyLimit: int('BODY_LIMIT', env.BODY_LIMIT, 1024 * 1024),
    uploadLimit: int('UPLOAD_LIMIT', env.UPLOAD_LIMIT, 20 * 1024 * 1024),
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ''),
    runWorker: bool(env.RUN_WORKER, true),
    webhookAllowPrivate: bool(env.WEBHOOK_ALLOW_PRIVATE, false),
    webhookPollMs: int('WEBHOOK_POLL_MS', env.WEBHOOK_POLL_MS, 100),
    webhookConcurrency: Math.max(1, int('WEBHOOK_CONCURRENCY', env.WEBHOOK_CONCURRENCY, 16)),
    secretKey: env.SECRET_KEY || 'dev-only-insecure-secret-key-change-me',
    tokenTtlSeconds: int('TOKEN_TTL_SECONDS', env.TOKEN_TTL_SECONDS, 0),
    rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE, 1200),
    idempotencyLeaseSeconds: int('IDEMPOTENCY_LEASE_SECONDS', env.IDEMPOTENCY_LEASE_SECONDS, 30),
    extractionThreads: Math.max(1, int('EXTRACTION_THREADS', env.EXTRACTION_THREADS, 2)),
    extractionTimeoutMs: Math.max(100, int('EXTRACTION_TIMEOUT_MS', env.EXTRACTION_TIMEOUT_MS, 10_000)),
    extractionMemoryMb: Math.max(32, int('EXTRACTION_MEMORY_MB', env.EXTRACTION_MEMORY_MB, 256)),
    extractionMaxDecodedBytes: int(
      'EXTRACTION_MAX_DECODED_BYTES',
      env.EXTRACTION_MAX_DECODED_BYTES,
      64 * 1024 * 1024,
    ),
    ...overrides,
  };
  return Object.freeze(config);
}
