import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import type { DbHandle } from '../src/db/index.js';
import { openConnections } from '../src/shared/open-connections.js';
import { createTestDb, testConfig } from './helpers.js';

/**
 * Closing the app (what `npm start` does on SIGTERM before it closes the database) waits for
 * route handlers still running — also those of a request whose client hung up, which is no
 * connection the server waits for any more. Before, the database was closed under such a
 * handler ("driver has already been destroyed").
 */
describe('closing the app', () => {
  let handle: DbHandle;
  after(() => handle?.destroy());

  it('waits for the handler of a request whose client hung up, naming it while it runs, then ends', async () => {
    handle = await createTestDb('sqlite');
    const app: FastifyInstance = await buildApp(testConfig(), { db: handle, logger: false });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let finished = false;
    app.get('/gated', async () => {
      started();
      await gate;
      finished = true;
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as net.AddressInfo;

    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write('GET /gated HTTP/1.1\r\nHost: x\r\n\r\n');
    await running;
    socket.destroy(); // the client hangs up while the handler waits
    await new Promise((r) => setTimeout(r, 50));

    let closed = false;
    const closing = app.close().then(() => {
      closed = true;
    });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(closed, false, 'the close ended while a handler was still running');
    // What a stop that takes too long names (serve.ts): the handler and how long it has run.
    const still = app.stillRunning();
    assert.deepEqual(
      still.map((h) => h.route),
      ['GET /gated'],
    );
    assert.ok(still[0]!.ms >= 250, `ran ${still[0]!.ms} ms`);
    open();
    await closing;
    assert.equal(finished, true);
    assert.deepEqual(app.stillRunning(), []);
  });

  it('a connection on which nothing has arrived does not hold the close up, and is listed as such while open', async () => {
    const app: FastifyInstance = await buildApp(testConfig(), { db: handle, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as net.AddressInfo;
    const silent = net.connect(port, '127.0.0.1');
    silent.on('error', () => {});
    await new Promise((r) => silent.once('connect', r));
    let ended = false;
    silent.once('close', () => {
      ended = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    // What a stop that passes its limit logs about it (serve.ts).
    assert.deepEqual(
      openConnections(app.server).map((c) => [c.remotePort, c.bytesRead, c.answering]),
      [[silent.localPort, 0, undefined]],
    );
    const started = Date.now();
    await app.close();
    // Node counts such a connection as busy: without the reaper the close waited for the
    // headers timeout (here 30 s), and a stop for its 15 s limit.
    assert.ok(Date.now() - started < 2000, `the close took ${Date.now() - started} ms`);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(ended, true, 'the silent connection was not ended');
  });
});
