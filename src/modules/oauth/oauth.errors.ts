import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { sendProblem, toAppError } from '../../plugins/errors.js';
import { AppError } from '../../shared/errors.js';

/**
 * The token endpoint answers errors the way RFC 6749 §5.2 says, not as problem+json: standard
 * OAuth client libraries read `error` and `error_description` and branch on the status this
 * section gives. Only rate limiting (429) and server faults (5xx), which §5.2 does not cover,
 * stay problem+json like everywhere else.
 */
export const OAUTH_ERRORS = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
} as const;
export type OAuthErrorCode = keyof typeof OAUTH_ERRORS;

export class OAuthError extends Error {
  readonly status: number;
  constructor(
    readonly error: OAuthErrorCode,
    description: string,
  ) {
    super(description);
    this.name = 'OAuthError';
    this.status = OAUTH_ERRORS[error];
  }
}

export const OAuthErrorBody = Type.Object(
  {
    error: Type.Union(
      Object.keys(OAUTH_ERRORS).map((code) => Type.Literal(code)),
      { description: 'RFC 6749 §5.2 error code' },
    ),
    error_description: Type.String({ description: 'Human-readable explanation' }),
  },
  { description: 'RFC 6749 §5.2 error answer (application/json)' },
);

/** Which §5.2 error a schema validation failure of the token request is. */
function fromValidation(
  body: unknown,
  issues: { instancePath?: string; keyword?: string }[],
): OAuthErrorCode {
  const grantType = (body as { grant_type?: unknown } | null)?.grant_type;
  if (typeof grantType === 'string' && grantType !== 'client_credentials') return 'unsupported_grant_type';
  if (issues.length > 0 && issues.every((i) => i.instancePath === '/scope')) return 'invalid_scope';
  return 'invalid_request';
}

function toOAuthError(err: unknown, req: FastifyRequest): OAuthError | undefined {
  if (err instanceof OAuthError) return err;
  const validation = (err as { validation?: { instancePath?: string; keyword?: string }[] }).validation;
  if (validation) return new OAuthError(fromValidation(req.body, validation), (err as Error).message);
  const app = toAppError(err as FastifyError);
  if (app.code === 'invalid_client') return new OAuthError('invalid_client', app.message);
  // Any other client error (unparseable body, wrong content type, body too large) is a
  // malformed request in OAuth's terms; rate limiting and server faults are not OAuth's.
  if (app.status >= 400 && app.status < 500 && app.status !== 429)
    return new OAuthError('invalid_request', app.message);
  return undefined;
}

export function oauthErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  const oauth = toOAuthError(err, req);
  if (!oauth) {
    const app = err instanceof AppError ? err : toAppError(err);
    if (app.status >= 500) req.log.error({ err }, 'request failed');
    return sendProblem(reply, app, req);
  }
  req.log.info({ code: oauth.error, detail: oauth.message }, 'token request refused');
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  // RFC 6749 §5.2 / RFC 9110 §15.5.2: a 401 names the scheme the client may authenticate with.
  if (oauth.status === 401) reply.header('www-authenticate', 'Basic realm="oauth", charset="UTF-8"');
  return reply
    .code(oauth.status)
    .type('application/json; charset=utf-8')
    .send({ error: oauth.error, error_description: oauth.message });
}
