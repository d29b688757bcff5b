import type { FastifyRequest } from 'fastify';
import type { LoggerOptions } from 'pino';

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
