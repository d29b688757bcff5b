import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../shared/errors.js';
import { silentSockets } from '../shared/open-connections.js';
import { sendProblem } from './errors.js';

/** A route handler that has not settled yet, and for how long it has run. */
export interface RunningHandler {
  route: string;
  ms: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The route handlers running now (plugins/closing.ts), for a stop that takes too long. */
    stillRunning(): RunningHandler[];
  }
}

/** Seconds a client is told to wait before retrying (another process, or this one restarted). */
const RETRY_AFTER_SECONDS = 1;

/**
 * While the server drains (app.close(): requests in flight finish, no new connections are
 * accepted), a request that still arrives on an open keep-alive connection is answered 503
 * problem+json with `Retry-After` (code `unavailable`), and the connection is closed (Fastify
 * adds `Connection: close` while closing). Fastify's own `return503OnClosing` answers the same
 * with a body of its own shape, so app.ts turns that off in favour of this hook. The close
 * ends once every route handler still running has settled.
 */
export const closingPlugin = fp(async (app: FastifyInstance) => {
  let closing = false;
  let reaper: NodeJS.Timeout | undefined;

  // Handlers still running. A request whose client hung up is no connection of the server's
  // any more, so server.close() does not wait for it, yet its handler runs on (a create may
  // wait for its batch's statement); closing the database under it failed it with "driver
  // has already been destroyed". The app's close waits for every handler to settle, bounded
  // by the caller's drain limit (serve.ts), which names those still running (`stillRunning`).
  // Each running handler's request and when it began: its route is read off it when asked.
  const running = new Map<FastifyRequest, number>();
  let settled: (() => void) | undefined;
  const done = (req: FastifyRequest) => {
    running.delete(req);
    if (running.size === 0) settled?.();
  };
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, ...args: Parameters<typeof handler>) {
      const req = args[0];
      running.set(req, Date.now());
      let out: unknown;
      try {
        out = handler.apply(this, args);
      } catch (err) {
        done(req);
        throw err;
      }
      if (out instanceof Promise)
        out.then(
          () => done(req),
          () => done(req),
        );
      else done(req);
      return out;
    } as typeof handler;
  });
  app.decorate('stillRunning', (): RunningHandler[] => {
    const now = Date.now();
    return [...running].map(([req, since]) => ({
      route: `${req.method} ${req.routeOptions.url}`,
      ms: now - since,
    }));
  });

  // preClose runs once Fastify has begun closing, before the server stops listening.
  app.addHook('preClose', (done) => {
    closing = true;
    // server.close() ends the connections idle at that moment; a kept-alive connection whose
    // request finishes later would hold the close up until its keep-alive timeout (72 s).
    // End each as soon as it is idle (checked here, not per request: no cost while serving).
    // A connection on which nothing has arrived is not idle to Node (`silentSockets`): it is
    // ended once it has stayed silent for a whole tick, so that a request on its way gets
    // the same chance as on a kept-alive connection.
    let silent = new WeakSet<Socket>();
    reaper = setInterval(() => {
      app.server.closeIdleConnections();
      const stillSilent = new WeakSet<Socket>();
      for (const socket of silentSockets(app.server)) {
        if (silent.has(socket)) socket.destroy();
        else stillSilent.add(socket);
      }
      silent = stillSilent;
    }, 100).unref();
    done();
  });
  app.addHook('onClose', async () => {
    clearInterval(reaper);
    if (running.size > 0) await new Promise<void>((resolve) => (settled = resolve));
  });
  app.addHook('onRequest', (req, reply, done) => {
    if (!closing) return done();
    // Answered here, not through the error handler: an expected answer of a stop, not a
    // failure to log at level error with its stack (a busy server gets many while it drains).
    req.log.info('refused: the server is shutting down');
    sendProblem(
      reply,
      new AppError('unavailable', 'The server is shutting down; retry the request', {
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
      }),
      req,
    );
  });
});
