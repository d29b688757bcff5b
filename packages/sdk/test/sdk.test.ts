// The SDK against a running service (scripts/with-service.ts starts one and passes API_URL
// and API_TOKEN): typed calls, errors, paging, idempotency, webhook signatures.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  ApiError,
  createApiClient,
  idempotencyKey,
  nextLink,
  ok,
  verifyWebhook,
  WebhookVerificationError,
} from '../src/index.js';

const { API_URL, API_TOKEN } = process.env;

describe('SDK against the service', () => {
  if (!API_URL || !API_TOKEN) throw new Error('API_URL and API_TOKEN must be set (npm run test:service)');
  const api = createApiClient({ baseUrl: API_URL, token: API_TOKEN });

  it('creates and reads a client with typed calls', async () => {
    const created = await api.POST('/clients', { body: { name: 'SDK Client GmbH', city: 'Köln' } });
    assert.equal(created.response.status, 201);
    assert.match(created.response.headers.get('location') ?? '', /\/api\/v1\/clients\/\d+$/);
    const id = created.data!.data.id;
    const read = await ok(api.GET('/clients/{id}', { params: { path: { id } } }));
    assert.equal(read.data.name, 'SDK Client GmbH');
  });

  it('throws problems as ApiError with code, status, detail and field errors', async () => {
    const missing = await api.GET('/clients/{id}', { params: { path: { id: 2_000_000_000 } } }).then(
      () => assert.fail('a missing client is an error'),
      (err: unknown) => err,
    );
    assert.ok(missing instanceof ApiError);
    assert.equal(missing.status, 404);
    assert.equal(missing.code, 'not_found');
    assert.ok(missing.detail);

    // biome-ignore lint/suspicious/noExplicitAny: a body the types would refuse, on purpose
    const invalid = await api.POST('/clients', { body: { name: '', colour: 'red' } as any }).catch((e) => e);
    assert.ok(invalid instanceof ApiError);
    assert.equal(invalid.status, 422);
    assert.equal(invalid.code, 'validation_failed');
    assert.ok(
      invalid.errors.some((e) => e.field === 'colour'),
      JSON.stringify(invalid.errors),
    );

    const anon = createApiClient({ baseUrl: API_URL, token: 'not-a-token' });
    const refused = await anon.GET('/whoami').catch((e) => e);
    assert.equal(refused.status, 401);
    assert.equal(refused.code, 'invalid_token');
  });

  it('iterates over every page of a list by the Link header', async () => {
    for (let i = 0; i < 5; i++) await api.POST('/clients', { body: { name: `Paged ${i}` } });
    const first = await ok(api.GET('/clients', { params: { query: { per_page: 2 } } }));
    const seen: number[] = [];
    for await (const client of api.paginate('/clients', { query: { per_page: 2 } })) seen.push(client.id);
    assert.equal(seen.length, first.meta.total);
    assert.equal(new Set(seen).size, seen.length, 'no client twice');
    assert.ok(seen.length > 2, 'more than one page');
  });

  it('replays a POST with the same Idempotency-Key instead of doing it twice', async () => {
    const key = idempotencyKey();
    const headers = { 'Idempotency-Key': key };
    const a = await api.POST('/clients', { body: { name: 'Once only' }, params: { header: headers } });
    const b = await api.POST('/clients', { body: { name: 'Once only' }, params: { header: headers } });
    assert.equal(a.data!.data.id, b.data!.data.id);
    assert.equal(b.response.headers.get('idempotent-replayed'), 'true');
    const other = await api
      .POST('/clients', { body: { name: 'Something else' }, params: { header: headers } })
      .catch((e) => e);
    assert.equal(other.code, 'idempotency_key_reused');
  });

  it('downloads a booked invoice as PDF', async () => {
    const client = await ok(
      api.POST('/clients', {
        body: { name: 'PDF Kunde AG', street: 'Domstraße 1', zip: '50668', city: 'Köln', country_code: 'DE' },
      }),
    );
    const invoice = await ok(
      api.POST('/outgoing-invoices', {
        body: {
          client_id: client.data.id,
          line_items: [{ title: 'Beratung', quantity: 2, unit_price: 120, tax_rate: 19 }],
        },
      }),
    );
    const booked = await ok(
      api.POST('/outgoing-invoices/{id}/book', { params: { path: { id: invoice.data.id } }, body: {} }),
    );
    assert.equal(booked.data.status, 'booked');
    const pdf = await api.GET('/outgoing-invoices/{id}/pdf', {
      params: { path: { id: invoice.data.id } },
      parseAs: 'arrayBuffer',
    });
    assert.equal(Buffer.from(pdf.data!).subarray(0, 5).toString(), '%PDF-');
  });
});

function problemResponse(status: number, code: string, headers: Record<string, string> = {}) {
  const body = { type: 'about:blank', title: code, status, detail: code, code };
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
  });
}

describe('SDK helpers', () => {
  it('verifies Standard Webhooks signatures as the service makes them', () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    const body = JSON.stringify({
      id: 'evt_1',
      event: 'task:created',
      occurred_at: '2026-01-01T00:00:00Z',
      data: {},
    });
    const now = new Date();
    const signature = new Webhook(secret).sign('msg_1', now, body);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': `v1,bm9wZQ== ${signature}`,
    };
    assert.equal(verifyWebhook(secret, headers, body).event, 'task:created');
    assert.equal(verifyWebhook(secret, new Headers(headers), Buffer.from(body)).id, 'evt_1');
    assert.throws(() => verifyWebhook(secret, headers, `${body} `), WebhookVerificationError);
    const old = new Date(now.getTime() + 10 * 60_000);
    assert.throws(() => verifyWebhook(secret, headers, body, { now: old }), /too old/);
    assert.throws(
      () => verifyWebhook(secret, { ...headers, 'webhook-signature': undefined }, body),
      /missing/,
    );
  });

  it('retries a POST on 503 with the same Idempotency-Key, and gives up on a 409 state refusal', async () => {
    const seen: { key: string | null; auth: string | null }[] = [];
    const answers = [
      problemResponse(503, 'unavailable', { 'retry-after': '0' }),
      new Response(JSON.stringify({ data: { id: 7 } }), {
        status: 201,
        headers: { 'content-type': 'application/json' },
      }),
    ];
    const api = createApiClient({
      baseUrl: 'http://service.test',
      token: () => 'tok',
      fetch: async (request) => {
        seen.push({
          key: request.headers.get('idempotency-key'),
          auth: request.headers.get('authorization'),
        });
        return answers.shift()!;
      },
    });
    const created = await api.POST('/clients', { body: { name: 'Retried' } });
    assert.equal(created.data!.data.id, 7);
    assert.equal(seen.length, 2);
    assert.ok(seen[0]!.key && seen[0]!.key === seen[1]!.key, 'one key for both attempts');
    assert.equal(seen[0]!.auth, 'Bearer tok');

    const refusing = createApiClient({
      baseUrl: 'http://service.test/api/v1',
      token: 'tok',
      fetch: async () => problemResponse(409, 'already_booked'),
    });
    const err = await refusing
      .POST('/outgoing-invoices/{id}/book', { params: { path: { id: 1 } }, body: {} })
      .catch((e) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 'already_booked');
    assert.equal(err.retryable, false);
  });

  it('finds the next link of a Link header', () => {
    const header =
      '</api/v1/clients?page=1>; rel="first", </api/v1/clients?page=3>; rel="next", </api/v1/clients?page=9>; rel="last"';
    assert.equal(nextLink(header), '/api/v1/clients?page=3');
    assert.equal(nextLink('</x>; rel="last"'), undefined);
    assert.equal(nextLink(null), undefined);
  });
});
