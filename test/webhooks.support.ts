import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Db } from '../src/db/index.js';
import { type EventKind, recordEvent } from '../src/shared/events.js';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export type Responder = (req: Received, n: number) => number | { status: number; delayMs?: number };

/** A webhook receiver on loopback that records every request and answers as told. */
export class Receiver {
  readonly requests: Received[] = [];
  /** Most requests in progress at once per path (a webhook must never get two at once). */
  readonly maxConcurrent = new Map<string, number>();
  private readonly active = new Map<string, number>();
  private server!: http.Server;
  url = '';
  respond: Responder = () => 200;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const got: Received = {
          path,
          headers: req.headers as Record<string, string>,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.requests.push(got);
        const now = (this.active.get(path) ?? 0) + 1;
        this.active.set(path, now);
        this.maxConcurrent.set(path, Math.max(now, this.maxConcurrent.get(path) ?? 0));
        const answer = this.respond(got, this.requests.length);
        const { status, delayMs = 0 } = typeof answer === 'number' ? { status: answer } : answer;
        const finish = () => {
          this.active.set(path, (this.active.get(path) ?? 1) - 1);
          if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
        };
        // Unref'd: a long delay must not keep a finished test file's process alive.
        if (delayMs > 0) setTimeout(finish, delayMs).unref();
        else finish();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  on(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 5000) {
  const until = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Records an event the way the resource modules do: inside the transaction of the change. */
export function record(
  db: Db,
  accountId: number,
  kind: EventKind,
  data: Record<string, unknown> & { id: number },
): Promise<number> {
  return db
    .transaction()
    .execute((trx) =>
      recordEvent(trx, { accountId, kind, resourceType: kind.split(':')[0]!, resourceId: data.id, data }),
    );
}
