import { createHash, randomBytes } from 'node:crypto';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onErrorHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';
import { groupCommitOf } from '../db/group-commit.js';
import type { Db } from '../db/index.js';
import {
  beginOwnTransaction,
  endScope,
  type OwnTransaction,
  type RequestScope,
  runInScope,
  transact,
} from '../db/transact.js';
import { AppError } from '../shared/errors.js';
import * as repo from './idempotency.repository.js';
import { addRouteHook } from './route-hooks.js';

/** The replay window; older keys are pruned by the retention job (src/retention.ts). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const TTL_MS = IDEMPOTENCY_TTL_MS;
const REPLAYED_HEADERS = ['content-type', 'location', 'link'];
/** Answers saying the request could not be read: nothing ran, so the key is not kept. */
const UNREAD = new Set([400, 408, 413, 414, 415, 431]);

/** The key a request holds, and the transaction its handler runs in (JSON bodies). */
interface Held {
  id: number;
  claim: string;
  trx?: OwnTransaction;
  scope?: RequestScope;
  /** Refused as invalid input (422 validation_failed): nothing ran, the key is not kept. */
  invalid?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: Held;
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

const inProgress = (seconds: number) =>
  new AppError('idempotency_in_progress', undefined, {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(seconds))) },
  });

type Claimed = { id: number; claim: string } | { replay: { status: number; headers: string; body: string } };

/**
 * Claims `key` for this request as a lease of `leaseMs`: a new key, one past its 24 hours,
 * or one whose request never answered and whose lease is over (its process died). A key
 * with an answer replays it; one whose lease runs is in progress (409 with Retry-After).
 */
async function claimKey(
  db: Db,
  integrationId: number,
  key: string,
  hash: string,
  leaseMs: number,
): Promise<Claimed> {
  for (;;) {
    const now = Date.now();
    const lease = { claim: randomBytes(12).toString('base64url'), locked_until: iso(now + leaseMs) };
    const id = await repo.insertKey(db, {
      integration_id: integrationId,
      key,
      request_hash: hash,
      created_at: iso(now),
      ...lease,
    });
    if (id !== undefined) return { id, claim: lease.claim };
    const row = await repo.findKey(db, integrationId, key);
    if (!row) continue; // forgotten meanwhile
    if (row.created_at < iso(now - TTL_MS)) {
      await repo.deleteExpiredKey(db, row.id, iso(now - TTL_MS));
      continue;
    }
    if (row.request_hash !== hash)
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request');
    if (row.status_code !== null)
      return {
        replay: {
          status: row.status_code,
          headers: row.response_headers ?? '{}',
          body: row.response_body ?? '',
        },
      };
    if (row.locked_until && row.locked_until > iso(now))
      throw inProgress((Date.parse(row.locked_until) - now) / 1000);
    if (await repo.takeOver(db, row.id, row.claim, lease)) return { id: row.id, claim: lease.claim };
  }
}

function requestHash(req: FastifyRequest): string {
  const h = createHash('sha256').update(`${req.method} ${req.url}\n`);
  // Multipart bodies are streamed to the handler; their length stands in for their content.
  if (isMultipart(req)) h.update(`multipart:${req.headers['content-length'] ?? ''}`);
  else h.update(JSON.stringify(req.body ?? null));
  return h.digest('hex');
}

const isMultipart = (req: FastifyRequest) =>
  String(req.headers['content-type'] ?? '').startsWith('multipart/');

function replayedHeaders(reply: FastifyReply): string {
  const headers: Record<string, string> = {};
  for (const h of REPLAYED_HEADERS) {
    const v = reply.getHeader(h);
    if (v !== undefined) headers[h] = String(v);
  }
  return JSON.stringify(headers);
}

/**
 * `Idempotency-Key` on any authenticated POST (CONVENTIONS.md): the first answer is kept per
 * integration for 24 h and replayed for the same key and body; another body is a 422.
 *
 * Crash-proof: the key is claimed as a lease (IDEMPOTENCY_LEASE_SECONDS, 30 s) once the
 * request has passed authentication and validation, so a refused request keeps no key and a
 * request whose process died frees its key after the lease. A JSON request then runs in one
 * database transaction (db/transact.ts: `app.db` is that transaction inside the handler) and
 * its answer is written into the key row in that same transaction, only if the request still
 * holds the key: a committed write always replays its answer, and a write that did not
 * commit left nothing behind. The answer goes out only after the commit.
 *
 * Uploads (multipart) hold the lease but do not run in the request's transaction: the body is
 * streamed in the handler, and on SQLite a transaction holds the one write lock, so a slow
 * upload would stall every other write (and read queued behind it) for as long as it lasts.
 * Their write commits in the service's own transaction and the answer is stored right after:
 * a crash between the two (a few statements) leaves the key to be retried after the lease,
 * which uploads the document again.
 */
export const idempotencyPlugin = fp(async (app: FastifyInstance) => {
  const leaseMs = app.config.idempotencyLeaseSeconds * 1000;

  // preHandler: after authentication, scopes and body validation, right before the handler.
  const begin: preHandlerHookHandler = (req, reply, done) => {
    if (!req.auth) return done();
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string') return done();
    // Sent but empty is a client's bug (an unset variable), not a request without a key.
    if (key.trim() === '') return done(new AppError('validation_failed', 'Idempotency-Key is empty'));
    if (key.length > 255)
      return done(new AppError('validation_failed', 'Idempotency-Key is longer than 255 characters'));
    let held: Held | undefined;
    const integrationId = req.auth.integrationId;
    const hash = requestHash(req);
    // On SQLite the claim is group-committed with the writes beside it (one fsync for many);
    // elsewhere its statements run on their own, each committing as it goes.
    (groupCommitOf(app.db)
      ? transact(app.db, (trx) => claimKey(trx, integrationId, key, hash, leaseMs))
      : claimKey(app.db, integrationId, key, hash, leaseMs)
    )
      .then(async (claimed) => {
        if ('replay' in claimed) {
          const { status, headers, body } = claimed.replay;
          reply
            .code(status)
            .headers({ ...JSON.parse(headers), 'idempotent-replayed': 'true' })
            .send(body);
          return;
        }
        held = claimed;
        // Set first: should the transaction not begin, onSend lets the key go.
        req.idempotency = held;
        if (isMultipart(req)) return;
        held.trx = await beginOwnTransaction(app.db);
        held.scope = { trx: held.trx.trx };
      })
      // Outside the chain above, so that an error thrown on the way to the handler is not
      // taken for one of the claim's.
      .then(
        () => {
          if (!held) return; // replayed
          if (held.scope) runInScope(held.scope, done);
          else done();
        },
        (err: Error) => done(err),
      );
  };

  // A handler that failed: its writes are undone at once, before the error handler runs (which
  // then sees the database, not a transaction PostgreSQL has aborted or SQLite's connection
  // held by it). onSend keeps or lets go the key once the error's answer is made.
  const failed: onErrorHookHandler = (req, _reply, error, done) => {
    const held = req.idempotency;
    if (!held) return done();
    if ((error as Partial<AppError>).code === 'validation_failed') held.invalid = true;
    const trx = held.trx;
    if (!trx) return done();
    held.trx = undefined;
    if (held.scope) endScope(held.scope);
    rollback(req, trx, error).then(() => done());
  };

  /** Ends the request's transaction and keeps (or lets go) its key, before the answer leaves. */
  const finish = async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const held = req.idempotency;
    if (!held) return payload;
    req.idempotency = undefined;
    const status = reply.statusCode;
    const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload.toString() : undefined;
    const kept = status < 500 && !UNREAD.has(status) && !held.invalid && body !== undefined;
    const answer = kept
      ? { status_code: status, response_body: body, response_headers: replayedHeaders(reply) }
      : undefined;
    const trx = held.trx;
    if (trx) {
      // From here on `app.db` is the database again, also for work this request started.
      if (held.scope) endScope(held.scope);
      if (status < 400) {
        await commit(req, reply, trx, held, answer);
        return payload;
      }
      // A refusal or failure leaves the data as it was.
      await rollback(req, trx);
    }
    // This answer stands either way (an upload has committed; a refusal wrote nothing): should
    // the key row not take it, the key is free again when its lease ends.
    try {
      if (answer) await repo.storeAnswer(app.db, held.id, held.claim, answer);
      else await repo.releaseKey(app.db, held.id, held.claim);
    } catch (err) {
      req.log.warn({ err }, 'could not keep or release an Idempotency-Key; it is free after its lease');
    }
    return payload;
  };

  /**
   * The write and its answer commit together, or neither does. Should the commit fail the
   * error becomes the answer (never a 2xx) and the key is let go unless its answer committed
   * after all (a connection lost during COMMIT); if even that cannot be asked, the key stays
   * held until its lease ends, and a retry then replays or runs anew.
   */
  async function commit(
    req: FastifyRequest,
    reply: FastifyReply,
    trx: OwnTransaction,
    held: Held,
    answer: Parameters<typeof repo.storeAnswer>[3] | undefined,
  ) {
    try {
      const holds = answer
        ? await repo.storeAnswer(trx.trx, held.id, held.claim, answer)
        : await repo.releaseKey(trx.trx, held.id, held.claim);
      // Another request took the key over (this one outlived its lease): it does the write.
      if (!holds) throw inProgress(leaseMs / 1000);
      await trx.commit();
    } catch (err) {
      // Rolling back ends the transaction and frees its connection even if the commit failed.
      await rollback(req, trx);
      await repo
        .releaseKey(app.db, held.id, held.claim)
        .catch((e: unknown) => req.log.warn({ err: e }, 'could not release an Idempotency-Key'));
      // The error's answer must not point at a record that was not kept.
      reply.removeHeader('location');
      throw err;
    }
  }

  /** Ends a transaction that must not commit; a failure here is logged, not answered. */
  const rollback = (req: FastifyRequest, trx: OwnTransaction, cause?: unknown) =>
    trx
      .rollback(cause)
      .catch((err: unknown) => req.log.error({ err }, 'rollback of an idempotent request failed'));

  // Every answer passes onSend; should a request end without one all the same, its transaction
  // must not stay open (on SQLite it would block the process's one connection).
  const abandoned = async (req: FastifyRequest) => {
    const held = req.idempotency;
    if (!held) return;
    req.idempotency = undefined;
    req.log.warn('idempotent request ended without an answer: rolled back, key released');
    if (held.trx) {
      if (held.scope) endScope(held.scope);
      await rollback(req, held.trx);
    }
    await repo
      .releaseKey(app.db, held.id, held.claim)
      .catch((err: unknown) => req.log.warn({ err }, 'could not release an Idempotency-Key'));
  };

  // Only POST routes carry these hooks, so other requests pay nothing for them. onSend goes
  // first among the route's own hooks, as a global hook would (a route may rewrite its answer
  // after it has been stored, e.g. to keep a secret out of the stored copy); preHandler last,
  // so that the transaction begins right before the handler.
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().includes('POST')) return;
    addRouteHook(route, 'preHandler', begin, 'last');
    addRouteHook(route, 'onError', failed, 'first');
    addRouteHook(route, 'onSend', finish, 'first');
    addRouteHook(route, 'onResponse', abandoned, 'first');
  });
});
