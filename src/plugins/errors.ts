import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { dbFault } from '../db/faults.js';
import { AppError, ERROR_CODES, type ErrorCode, type FieldError } from '../shared/errors.js';
import { routeTable } from './route-table.js';

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** Ajv issues -> `{ field, message }`, with `field` a dotted path such as `line_items.0.quantity`. */
function fieldErrors(issues: ValidationIssue[], context?: string): FieldError[] {
  // A nullable field that fails reports three issues (its type, "must be null", "anyOf");
  // keep the one that says what is wrong with the value.
  const paths = new Map<string, number>();
  for (const v of issues) paths.set(v.instancePath ?? '', (paths.get(v.instancePath ?? '') ?? 0) + 1);
  const useful = issues.filter(
    (v) =>
      (paths.get(v.instancePath ?? '') ?? 0) < 2 ||
      !(v.keyword === 'anyOf' || (v.keyword === 'type' && v.params?.type === 'null')),
  );
  const seen = new Set<string>();
  return useful.flatMap((v) => {
    let field = (v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    if (v.keyword === 'required' && typeof v.params?.missingProperty === 'string') {
      field = field ? `${field}.${v.params.missingProperty}` : v.params.missingProperty;
    } else if (v.keyword === 'additionalProperties' && typeof v.params?.additionalProperty === 'string') {
      field = field ? `${field}.${v.params.additionalProperty}` : v.params.additionalProperty;
    }
    const error = { field: field || context || '(root)', message: v.message ?? 'is invalid' };
    const key = `${error.field}\0${error.message}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [error];
  });
}

/** Database constraint violations, on both SQLite and PostgreSQL, become client errors. */
function fromDatabase(err: { code?: unknown; message?: string }): AppError | undefined {
  const code = String(err.code ?? '');
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new AppError('already_exists', 'A record with this value already exists', { cause: err });
  }
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new AppError('invalid_reference', 'A referenced record does not exist', { cause: err });
  }
  // The database, not the request: unreachable or overloaded (a client retries after a
  // moment), read-only, or full. The error handler logs the original error with its code.
  switch (dbFault(err)) {
    case 'unavailable':
      return new AppError('unavailable', 'The database is unavailable; retry later', {
        cause: err,
        headers: { 'retry-after': '5' },
      });
    case 'read_only':
      return new AppError('read_only', undefined, { cause: err, headers: { 'retry-after': '60' } });
    case 'storage_full':
      return new AppError('storage_full', undefined, { cause: err });
  }
  return undefined;
}

export function toAppError(err: FastifyError | Error): AppError {
  if (err instanceof AppError) return err;
  const e = err as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (e.validation) {
    const errors = fieldErrors(e.validation, e.validationContext);
    return new AppError('validation_failed', errors.map((x) => `${x.field}: ${x.message}`).join('; '), {
      errors,
    });
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_json', e.message);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new AppError('payload_too_large', e.message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new AppError(
        e.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' ? 'bad_request' : 'unsupported_media_type',
        e.message,
      );
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new AppError('bad_request', e.message);
  }
  // Before the database check: a client that went away mid-body is an ECONNRESET with a 400
  // from Node's HTTP server, not a lost database connection.
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const code = (Object.entries(ERROR_CODES).find(([, v]) => v.status === e.statusCode)?.[0] ??
      'bad_request') as ErrorCode;
    return new AppError(code, e.message);
  }
  const db = fromDatabase(e);
  if (db) return db;
  return new AppError('internal', undefined, { cause: err });
}

export function problemBody(err: AppError, instance?: string) {
  return {
    type: `https://docs.invoicing.local/problems/${err.code.replace(/_/g, '-')}`,
    title: ERROR_CODES[err.code].title,
    status: err.status,
    // 5xx details stay in the log, never in the answer; a known condition (database away,
    // storage full) is named by its title rather than called unexpected.
    detail:
      err.status < 500
        ? err.message
        : err.code === 'internal'
          ? 'An unexpected error occurred. It has been logged.'
          : ERROR_CODES[err.code].title,
    code: err.code,
    ...(instance ? { instance } : {}),
    ...(err.errors ? { errors: err.errors } : {}),
    ...(err.extra ?? {}),
  };
}

export function sendProblem(reply: FastifyReply, err: AppError, req?: FastifyRequest) {
  if (err.headers) reply.headers(err.headers);
  return reply
    .code(err.status)
    .type('application/problem+json; charset=utf-8')
    .send(JSON.stringify(problemBody(err, req?.url)));
}

/** Errors the router meets before any route runs: a malformed URL (400), a path parameter beyond maxParamLength (414). */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  return sendProblem(reply, toAppError(err), req);
}

/**
 * Errors Node's HTTP parser meets before a request reaches Fastify (a body not received in
 * time, headers or request line too long, a malformed request), answered as problem+json
 * like everything else. Node closes the connection afterwards.
 */
export function clientErrorHandler(
  this: FastifyInstance,
  error: Error & { code?: string },
  socket: Socket,
): void {
  const err = error as Error & { code?: string; rawPacket?: unknown };
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let appError: AppError;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    appError = new AppError('request_timeout', 'The request was not received in time');
  else if (err.code === 'HPE_HEADER_OVERFLOW') {
    // The request line counts towards the header limit: when the packet starts a request
    // whose first line is longer than half the limit (or holds no line end), the URL is at fault.
    const raw = Buffer.isBuffer(err.rawPacket) ? err.rawPacket : Buffer.alloc(0);
    const lineEnd = raw.indexOf('\n');
    const startsRequest = /^[A-Z]+ /.test(raw.subarray(0, 16).toString('latin1'));
    appError =
      lineEnd < 0 || (startsRequest && lineEnd > 8192)
        ? new AppError('uri_too_long', 'The request URL is too long')
        : new AppError('header_too_large', 'The request header fields are too large');
  } else appError = new AppError('bad_request', 'The request is not valid HTTP');
  this.log.info({ code: appError.code, err: err.code }, 'client error');
  // Not over an answer that has begun (keep-alive: the error is in a later request).
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (socket.writable && !answering) {
    const body = JSON.stringify(problemBody(appError));
    socket.write(
      `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

export const errorsPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((error: FastifyError, req, reply) => {
    const appError = toAppError(error);
    if (appError.status >= 500) req.log.error({ err: error }, 'request failed');
    else req.log.info({ code: appError.code, detail: appError.message }, 'request refused');
    return sendProblem(reply, appError, req);
  });
  // A path the router did not match: another method's (405 + Allow) or none at all (404).
  const routes = routeTable();
  app.addHook('onRoute', (route) => routes.add(route));
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const methods = routes.methodsFor(req.url);
    if (methods.length > 0) {
      const allow = methods.join(', ');
      return sendProblem(
        reply,
        new AppError('method_not_allowed', `${req.method} is not allowed on ${path}; allowed: ${allow}`, {
          headers: { allow },
        }),
        req,
      );
    }
    return sendProblem(reply, new AppError('not_found', `No route ${req.method} ${path}`), req);
  });
});
