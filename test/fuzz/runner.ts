import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/index.js';
import { operations, type Schema } from './openapi.js';
import { Prng } from './prng.js';
import { type FuzzRequest, makeRequest, OAUTH_TOKEN } from './requests.js';
import { changedTables, snapshot } from './snapshot.js';
import type { World } from './world.js';

export interface Offence {
  kind: '5xx' | 'not problem+json' | 'not an OAuth error' | 'partial write' | "another tenant's id accepted";
  request: FuzzRequest;
  status: number;
  body: string;
  note?: string;
}

export interface FuzzSummary {
  requests: number;
  operations: number;
  byStatus: Record<number, number>;
  /** Batches of refused requests whose database was compared before and after. */
  checkedBatches: number;
  offences: Offence[];
}

export interface FuzzOptions {
  requests: number;
  seed: number;
  /** Requests between two database snapshots. */
  batch?: number;
  /** Called every so often with the number of requests sent. */
  progress?: (sent: number) => void;
}

const isProblem = (contentType: string, body: unknown, status: number) =>
  contentType.startsWith('application/problem+json') &&
  typeof body === 'object' &&
  body !== null &&
  ['type', 'title', 'status', 'code'].every((k) => k in body) &&
  (body as { status: unknown }).status === status;

const isOAuthError = (contentType: string, body: unknown) =>
  contentType.startsWith('application/json') &&
  typeof body === 'object' &&
  body !== null &&
  typeof (body as { error?: unknown }).error === 'string' &&
  typeof (body as { error_description?: unknown }).error_description === 'string';

/**
 * Sends `requests` generated bad requests, spread evenly over every operation of the
 * document, and checks each answer; the database is compared before and after every batch
 * whose requests were all refused, so a refused request that wrote something is caught.
 */
export async function fuzz(
  app: FastifyInstance,
  db: Db,
  world: World,
  doc: Schema,
  options: FuzzOptions,
): Promise<FuzzSummary> {
  const rng = new Prng(options.seed);
  const ops = operations(doc);
  const batchSize = options.batch ?? 8;
  const summary: FuzzSummary = {
    requests: 0,
    operations: ops.length,
    byStatus: {},
    checkedBatches: 0,
    offences: [],
  };
  let before = await snapshot(db);
  let order: typeof ops = [];
  while (summary.requests < options.requests) {
    const batch: { request: FuzzRequest; status: number; body: string }[] = [];
    for (let i = 0; i < batchSize && summary.requests < options.requests; i++) {
      if (order.length === 0) order = shuffle(ops, rng);
      const op = order.pop()!;
      const request = makeRequest(op, world, rng);
      const res = await app.inject({
        method: request.method as 'GET',
        url: request.url,
        headers: {
          ...(op.public ? {} : { authorization: `Bearer ${world.api.token}` }),
          ...request.headers,
        },
        ...(request.payload !== undefined ? { payload: request.payload } : {}),
      });
      summary.requests++;
      summary.byStatus[res.statusCode] = (summary.byStatus[res.statusCode] ?? 0) + 1;
      batch.push({ request, status: res.statusCode, body: res.body });
      const contentType = String(res.headers['content-type'] ?? '');
      let parsed: unknown;
      try {
        parsed = JSON.parse(res.body);
      } catch {
        parsed = undefined;
      }
      const offence = (kind: Offence['kind']) =>
        summary.offences.push({ kind, request, status: res.statusCode, body: res.body.slice(0, 300) });
      if (res.statusCode >= 500) offence('5xx');
      else if (res.statusCode < 400 && request.label.includes("another tenant's"))
        offence("another tenant's id accepted");
      else if (res.statusCode >= 400) {
        if (op.key === OAUTH_TOKEN && res.statusCode !== 429) {
          if (!isOAuthError(contentType, parsed)) offence('not an OAuth error');
        } else if (!isProblem(contentType, parsed, res.statusCode)) offence('not problem+json');
      }
      if (summary.requests % 200 === 0) options.progress?.(summary.requests);
      // An accepted request may change data: the refused ones before it in this batch go
      // unchecked, and the next batch starts from the state after it.
      if (res.statusCode < 400) break;
    }
    const after = await snapshot(db);
    // Even reads may write (a booked invoice's PDF is rendered and stored once), so only a
    // batch of refused requests is compared.
    if (batch.every((r) => r.status >= 400)) {
      summary.checkedBatches++;
      const changed = changedTables(before, after);
      if (changed.length) {
        for (const r of batch)
          summary.offences.push({
            kind: 'partial write',
            request: r.request,
            status: r.status,
            body: r.body.slice(0, 300),
            note: `one of ${batch.length} refused requests changed: ${changed.join(', ')}`,
          });
      }
    }
    before = after;
  }
  return summary;
}

function shuffle<T>(items: T[], rng: Prng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Offences as lines a developer can act on: one per request, grouped by kind. */
export function describeOffences(offences: Offence[], limit = 60): string {
  const lines = offences.slice(0, limit).map((o) => {
    const payload =
      o.request.payload === undefined
        ? ''
        : ` body=${JSON.stringify(String(o.request.payload).slice(0, 160))}`;
    const headers = Object.keys(o.request.headers).length
      ? ` headers=${JSON.stringify(o.request.headers).slice(0, 160)}`
      : '';
    return `[${o.kind}] ${o.request.method} ${o.request.url.slice(0, 200)} (${o.request.label})${headers}${payload} -> ${o.status} ${o.body.slice(0, 200)}${o.note ? ` — ${o.note}` : ''}`;
  });
  if (offences.length > limit) lines.push(`… and ${offences.length - limit} more`);
  return lines.join('\n');
}

/** Distinct failure classes: kind, operation and what was made bad (values stripped). */
export function failureClasses(offences: Offence[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const o of offences) {
    const what = o.request.label.replace(/=.*$/, '=…').replace(/: (number|date) .*/, ': $1 …');
    const key = `${o.kind} ${o.request.op} (${what})`;
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}
