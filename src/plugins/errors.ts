import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { toAppError } from '../shared/db-errors.js';
import { AppError, ERROR_CODES } from '../shared/errors.js';
import { redactUrl } from '../shared/logging.js';
import { problemType } from './problem-types.js';
import { routeTable } from './route-table.js';

// Re-exported: the translation of any error into an AppError lives in shared/db-errors.ts.
export { toAppError } from '../shared/db-errors.js';

export function problemBody(err: AppError, instance?: string) {
  return {
    type: problemType(err.code),
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
  // A credential sent in the query string (access_token=…) is not sent back.
  const instance = req?.url === undefined ? undefined : redactUrl(req.url);
  return reply
    .code(err.status)
    .type('application/problem+json; charset=utf-8')
    .send(JSON.stringify(problemBody(err, instance)));
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
    const shadowed = shadowedPath(error, req);
    if (shadowed) return sendProblem(reply, shadowed, req);
    // A request no route matched whose body the not-found route could not parse (a method
    // such as QUERY without a Content-Type): still 405 or 404, not the parser's 400.
    if (req.routeOptions.url === undefined && (error.statusCode ?? 500) < 500)
      return sendProblem(reply, unmatched(req), req);
    const appError = toAppError(error);
    if (appError.status >= 500) req.log.error({ err: error }, 'request failed');
    else req.log.info({ code: appError.code, detail: appError.message }, 'request refused');
    return sendProblem(reply, appError, req);
  });
  // A path the router did not match: another method's (405 + Allow) or none at all (404).
  const routes = routeTable();
  /** A fixed path asked with a method it lacks, taken by a parameter route: 405 with its own methods. */
  const shadowedPath = (error: FastifyError & { validationContext?: string }, req: FastifyRequest) => {
    if (error.validationContext !== 'params' || !req.routeOptions.url) return undefined;
    const methods = routes.fixedMethodsFor(req.url, req.routeOptions.url);
    if (methods.length === 0) return undefined;
    const allow = methods.join(', ');
    const path = req.url.split('?')[0];
    return new AppError('method_not_allowed', `${req.method} is not allowed on ${path}; allowed: ${allow}`, {
      headers: { allow },
    });
  };
  app.addHook('onRoute', (route) => routes.add(route));
  const unmatched = (req: FastifyRequest): AppError => {
    const path = req.url.split('?')[0];
    const methods = routes.methodsFor(req.url);
    if (methods.length === 0) return new AppError('not_found', `No route ${req.method} ${path}`);
    const allow = methods.join(', ');
    return new AppError('method_not_allowed', `${req.method} is not allowed on ${path}; allowed: ${allow}`, {
      headers: { allow },
    });
  };
  app.setNotFoundHandler((req, reply) => sendProblem(reply, unmatched(req), req));
});
