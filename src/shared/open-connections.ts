import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** One connection a server still holds, and what it is doing: for a stop that takes too long. */
export interface OpenConnection {
  remotePort: number | undefined;
  bytesRead: number;
  bytesWritten: number;
  /** The request it is answering, if any (the path, no query: it may hold credentials). */
  answering?: { method: string | undefined; path: string; headersSent: boolean; ended: boolean };
}

type Parser = { socket?: Socket & { _httpMessage?: ServerResponse & { req?: IncomingMessage } } };

/**
 * The connections a Node HTTP server holds. Node keeps them in a list under a private symbol
 * (`http.server.connections`, the one `closeIdleConnections()` reads; there is no public way
 * to list them); [] where it is not found, as in another Node version.
 */
function parsersOf(server: Server): Parser[] {
  const key = Object.getOwnPropertySymbols(server).find((s) => s.description === 'http.server.connections');
  const list = key ? (server as unknown as Record<symbol, { all?: () => Parser[] }>)[key] : undefined;
  return typeof list?.all === 'function' ? list.all() : [];
}

/**
 * The connections on which nothing has arrived yet. Node counts such a connection as busy,
 * not idle, so `closeIdleConnections()` leaves it open: one that a client opened and left
 * silent holds a closing server up until the headers timeout.
 */
export const silentSockets = (server: Server): Socket[] =>
  parsersOf(server).flatMap(({ socket }) =>
    socket && socket.bytesRead === 0 && !socket._httpMessage ? [socket] : [],
  );

/** The connections a server still holds, at most `limit`, and what each is doing. */
export function openConnections(server: Server, limit = 20): OpenConnection[] {
  return parsersOf(server)
    .slice(0, limit)
    .flatMap(({ socket }) => {
      if (!socket) return [];
      const res = socket._httpMessage;
      return [
        {
          remotePort: socket.remotePort,
          bytesRead: socket.bytesRead,
          bytesWritten: socket.bytesWritten,
          ...(res && {
            answering: {
              method: res.req?.method,
              path: (res.req?.url ?? '').split('?')[0]!,
              headersSent: res.headersSent,
              ended: res.writableEnded,
            },
          }),
        },
      ];
    });
}
