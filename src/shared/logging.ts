import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger, LoggerOptions } from 'pino';

/**
 * Query parameters whose values are credentials. A client that puts its token in the URL
 * (`?access_token=`, an OAuth `code` or `client_secret` sent that way) must not find it in
 * the request log, which is kept longer and read by more people than the token's lifetime
 * warrants. Compared case-insensitively.
 */
const SECRET_PARAMS = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'client_secret',
  'code',
  'password',
  'secret',
  'api_key',
  'apikey',
  'signature',
  'client_assertion',
]);

export const REDACTED = '[redacted]';

function paramName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase(); // a malformed escape: compare it as written
  }
}

/** `url` with the values of credential parameters replaced, everything else byte for byte. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return SECRET_PARAMS.has(paramName(name)) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

/**
 * The API's logger: Fastify's request fields with the URL redacted, and credentials in
 * headers censored wherever a log line carries them (Fastify logs no headers itself; this
 * holds should anyone add them).
 */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    serializers: {
      req: (req: FastifyRequest) => ({
        method: req.method,
        url: redactUrl(req.url),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        'headers.cookie',
        'request.headers.authorization',
        '*.headers.authorization',
      ],
      censor: REDACTED,
    },
  };
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/**
 * A request's logger, made into pino's child on the first line logged at an enabled level.
 * Fastify makes a child per request (to bind the request id), and with the redaction above
 * pino runs every binding through it: about 1.2 µs a request, 3 % of a cached GET's CPU
 * (issue 15's profile), for a logger that most requests never write to below `info`.
 */
class RequestLogger {
  #real: FastifyBaseLogger | undefined;
  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
  ) {}
  real(): FastifyBaseLogger {
    this.#real ??= this.parent.child(this.bindings);
    return this.#real;
  }
  /** Whether a line at `level` goes to pino (whose child then decides, as it would alone). */
  writes(level: (typeof LEVELS)[number]): boolean {
    return this.#real !== undefined || this.parent.isLevelEnabled(level);
  }
  get level(): string {
    return this.#real?.level ?? this.parent.level;
  }
  set level(level: string) {
    this.real().level = level;
  }
  silent(): void {}
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }
}
// Methods on the prototype: a request pays for one small object, not a closure per level.
for (const level of LEVELS)
  Object.defineProperty(RequestLogger.prototype, level, {
    value(this: RequestLogger, ...args: unknown[]) {
      if (this.writes(level)) (this.real()[level] as (...a: unknown[]) => void)(...args);
    },
  });

/**
 * Fastify's `childLoggerFactory`: a `RequestLogger`, or pino's child at once where the route
 * sets its own level or serializers, or the logger is not pino's.
 */
export function requestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  const pino = logger as Partial<Logger>;
  if (options.level || options.serializers || typeof pino.isLevelEnabled !== 'function')
    return logger.child(bindings, options);
  return new RequestLogger(logger as Logger, bindings) as unknown as FastifyBaseLogger;
}
