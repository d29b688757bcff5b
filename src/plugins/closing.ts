import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../shared/errors.js';

/** Seconds a client is told to wait before retrying (another process, or this one restarted). */
const RETRY_AFTER_SECONDS = 1;

/**
 * While the server drains (app.close(): requests in flight finish, no new connections are
 * accepted), a request that still arrives on an open keep-alive connection is answered 503
 * problem+json with `Retry-After` (code `unavailable`), and the connection is closed (Fastify
 * adds `Connection: close` while closing). Fastify's own `return503OnClosing` answers the same
 * with a body of its own shape, so app.ts turns that off in favour of this hook.
 */
export const closingPlugin = fp(async (app: FastifyInstance) => {
  let closing = false;
  let reaper: NodeJS.Timeout | undefined;
  // preClose runs once Fastify has begun closing, before the server stops listening.
  app.addHook('preClose', (done) => {
    closing = true;
    // server.close() ends the connections idle at that moment; a kept-alive connection whose
    // request finishes later would hold the close up until its keep-alive timeout (72 s).
    // End each as soon as it is idle (checked here, not per request: no cost while serving).
    reaper = setInterval(() => app.server.closeIdleConnections(), 100).unref();
    done();
  });
  app.addHook('onClose', (_app, done) => {
    clearInterval(reaper);
    done();
  });
  app.addHook('onRequest', (_req, _reply, done) => {
    if (!closing) return done();
    done(
      new AppError('unavailable', 'The server is shutting down; retry the request', {
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
      }),
    );
  });
});
