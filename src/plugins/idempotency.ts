import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Db } from '../db/index.js';
import { AppError } from '../shared/errors.js';
import * as repo from './idempotency.repository.js';
import { addRouteHook } from './route-hooks.js';

const TTL_MS = 24 * 60 * 60 * 1000;
const REPLAYED_HEADERS = ['content-type', 'location', 'link'];

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyRowId?: number;
  }
}

const cutoff = () => new Date(Date.now() - TTL_MS).toISOString();

async function claim(db: Db, integrationId: number, key: string, requestHash: string) {
  try {
    const row = await repo.insertKey(db, integrationId, key, requestHash, new Date().toISOString());
    return { claimed: row.id } as const;
  } catch (err) {
    const existing = await repo.findKey(db, integrationId, key);
    if (!existing) throw err;
    if (existing.created_at < cutoff()) {
      await repo.deleteKey(db, existing.id);
      return claim(db, integrationId, key, requestHash);
    }
    return { existing } as const;
  }
}

function requestHash(req: FastifyRequest): string {
  const h = createHash('sha256').update(`${req.method} ${req.url}\n`);
  // Multipart bodies are streamed to the handler; their length stands in for their content.
  if (String(req.headers['content-type'] ?? '').startsWith('multipart/'))
    h.update(`multipart:${req.headers['content-length'] ?? ''}`);
  else h.update(JSON.stringify(req.body ?? null));
  return h.digest('hex');
}

/**
 * `Idempotency-Key` on any authenticated POST: the first answer (below 500) is kept per
 * integration for 24 h and replayed for the same key and body; another body is a 422.
 */
export const idempotencyPlugin = fp(async (app: FastifyInstance) => {
  // preValidation: the body is parsed but not yet validated, so a refused body is remembered too.
  const claimKey = async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.method !== 'POST' || !req.auth) return;
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string' || key === '') return;
    if (key.length > 255)
      throw new AppError('validation_failed', 'Idempotency-Key is longer than 255 characters');
    const hash = requestHash(req);
    const result = await claim(app.db, req.auth.integrationId, key, hash);
    if ('claimed' in result) {
      req.idempotencyRowId = result.claimed;
      return;
    }
    const row = result.existing;
    if (row.request_hash !== hash) {
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request');
    }
    if (row.status_code === null) throw new AppError('idempotency_in_progress');
    const headers = JSON.parse(row.response_headers ?? '{}') as Record<string, string>;
    return reply
      .code(row.status_code)
      .headers({ ...headers, 'idempotent-replayed': 'true' })
      .send(row.response_body ?? '');
  };

  const storeAnswer = async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const id = req.idempotencyRowId;
    if (id === undefined) return payload;
    req.idempotencyRowId = undefined;
    if (reply.statusCode >= 500 || !(typeof payload === 'string' || Buffer.isBuffer(payload))) {
      await repo.deleteKey(app.db, id);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const h of REPLAYED_HEADERS) {
      const v = reply.getHeader(h);
      if (v !== undefined) headers[h] = String(v);
    }
    await repo.storeAnswer(app.db, id, reply.statusCode, payload.toString(), JSON.stringify(headers));
    return payload;
  };

  // A request that never reached onSend (aborted connection) must not block its key forever.
  const release = async (req: FastifyRequest) => {
    if (req.idempotencyRowId !== undefined) {
      await repo.deleteKey(app.db, req.idempotencyRowId);
    }
  };

  // Only POST routes carry these hooks, so other requests pay nothing for them. They go first
  // among the route's own hooks, as global hooks would (a route may rewrite its answer after
  // it has been stored, e.g. to keep a secret out of the stored copy).
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().includes('POST')) return;
    addRouteHook(route, 'preValidation', claimKey, 'first');
    addRouteHook(route, 'onSend', storeAnswer, 'first');
    addRouteHook(route, 'onResponse', release, 'first');
  });

  const sweep = setInterval(
    () => {
      repo
        .deleteKeysBefore(app.db, cutoff())
        .catch((err) => app.log.warn({ err }, 'idempotency sweep failed'));
    },
    60 * 60 * 1000,
  );
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));
});
