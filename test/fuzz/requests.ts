import { BASES, type BaseRequest, MULTIPART_DATA_BASES } from './bases.js';
import { allAtBounds, type Bad, badValues, fieldPaths, validValue, withField } from './generate.js';
import { fieldTable, pathParamTable } from './ids.js';
import { isIdName, mainType, nonNull, type Operation, type Schema } from './openapi.js';
import type { Prng } from './prng.js';
import { MISSING_ID, type World } from './world.js';

/** One generated request, described so that a failure message can show it. */
export interface FuzzRequest {
  op: string;
  /** What was made bad. */
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

export const OAUTH_TOKEN = 'POST /oauth/token';

/** An id of the world's main account for a path parameter, matching its siblings. */
function ownParam(op: Operation, name: string, w: World, rng: Prng): number {
  const n = w.named;
  if (name === 'invoiceId') return n.incomingInvoice;
  if (name === 'bookingId') return n.booking;
  if (name === 'delivery_id') return n.delivery;
  if (op.path.startsWith('/webhooks/{id}/deliveries')) return n.webhook;
  if (op.path === '/outgoing-invoices/{id}/plan-invoices') return n.partialPlan;
  if (op.path === '/outgoing-invoices/{id}/generate' || op.path === '/outgoing-invoices/master/{id}')
    return n.recurringPlan;
  const pool = w.own[pathParamTable(op.path, name)] ?? [];
  return pool.length ? rng.pick(pool) : MISSING_ID;
}

function otherId(w: World, table: string | undefined, rng: Prng): number | undefined {
  const pool = table ? w.other[table] : undefined;
  return pool?.length ? rng.pick(pool) : undefined;
}

function base(op: Operation, w: World, rng: Prng): BaseRequest {
  const makers = BASES[op.key];
  if (makers?.length) return rng.pick(makers)(w.named, w);
  const json = op.bodies['application/json'];
  return { body: json ? (validValue(json) as Record<string, unknown>) : {} };
}

function buildUrl(op: Operation, params: Record<string, string | number>, query: string[] = []): string {
  const path = op.prefix + op.path.replace(/\{([^}]+)\}/g, (_, name: string) => String(params[name]));
  return query.length ? `${path}?${query.join('&')}` : path;
}

const json = (body: unknown) => ({
  headers: { 'content-type': 'application/json' },
  payload: JSON.stringify(body),
});

const BAD_PATH_VALUES = [
  '0',
  '-1',
  '2147483648',
  '1e308',
  'abc',
  '1.5',
  '%00',
  '9'.repeat(30),
  '%20',
  '1%00',
];

const BAD_QUERY_INTEGERS = [
  '1e308',
  '-1',
  '0',
  '2147483648',
  'abc',
  '',
  '1.5',
  '%00',
  '99999999999999999999',
];
const BAD_QUERY_STRINGS = ['%00', 'a%00b', 'x'.repeat(5000), '%ZZ', '%F0%28%8C%28'];
const BAD_QUERY_DATES = ['0000-01-01', '9999-12-31', '2026-02-30', 'not-a-date', '2026-01-01T25:00:00Z'];

function queryMutation(op: Operation, w: World, rng: Prng): { label: string; query: string[] } {
  const params = op.params.filter((p) => p.in === 'query');
  const hasPaging = params.some((p) => p.name === 'page');
  const choices: (() => { label: string; query: string[] })[] = [
    () => ({ label: 'unknown query parameter', query: ['zzz_unknown=1'] }),
    () => ({ label: 'misspelled filter', query: ['clientid=4'] }),
  ];
  if (hasPaging)
    for (const q of [
      'page=1e308',
      'per_page=0',
      'per_page=101',
      'page=0',
      'page=-1',
      'per_page=1e308',
      'page=2147483648',
      'page=1&page=2',
      'page=abc',
    ])
      choices.push(() => ({ label: q, query: [q] }));
  for (const p of params) {
    choices.push(() => {
      const s = nonNull(p.schema)[0] ?? {};
      const type = mainType(p.schema);
      let values: string[] = BAD_QUERY_STRINGS;
      if (type === 'integer' || type === 'number') {
        values = [...BAD_QUERY_INTEGERS];
        if (isIdName(p.name)) {
          const other = otherId(w, fieldTable(op.key, p.name), rng);
          if (other !== undefined) values.push(String(other));
          values.push(String(MISSING_ID));
        }
      } else if (type === 'boolean') values = ['maybe', '2', '', 'true&' + p.name + '=false'];
      else if (s.format === 'date' || s.format === 'date-time') values = BAD_QUERY_DATES;
      else if (s.enum) values = ['bogus', '%00', ''];
      const v = rng.pick(values);
      return { label: `query ${p.name}=${v.slice(0, 40)}`, query: [`${p.name}=${v}`] };
    });
  }
  return rng.pick(choices)();
}

function bodyMutation(
  op: Operation,
  schema: Schema,
  body: unknown,
  w: World,
  rng: Prng,
): { label: string; body: unknown } {
  const fields = fieldPaths(schema);
  const roll = rng.next();
  if (roll < 0.06 || fields.length === 0)
    return { label: 'unknown field', body: { ...(body as object), zzz_unknown: 1 } };
  if (roll < 0.1) return { label: 'empty object', body: {} };
  const items = fields.filter((f) => f.path.at(-1) === 0);
  if (roll < 0.14 && items.length) {
    const f = rng.pick(items);
    return {
      label: `unknown field in ${f.path.slice(0, -1).join('.')}[0]`,
      body: withField(body, schema, [...f.path, 'zzz_unknown'], 1),
    };
  }
  const lineItems = fields.find((f) => f.path.at(-1) === 'line_items');
  if (roll < 0.2 && lineItems) {
    const [quantity, unit_price] = rng.pick([
      [1e9, 1e11],
      [999999999.99, 99999999999.99],
      [1e15, 1e15],
      [0.001, 0.005],
      [3, 33.333],
    ]);
    return {
      label: `line item ${quantity} x ${unit_price}`,
      body: withField(body, schema, ['line_items'], [{ title: 'Huge', quantity, unit_price, tax_rate: 19 }]),
    };
  }
  if (roll < 0.24) {
    const side = rng.pick(['max', 'min'] as const);
    return { label: `every field at its ${side}imum`, body: allAtBounds(body, schema, side, isIdName) };
  }
  const f = rng.pick(fields);
  const name = String(f.path.filter((p) => typeof p === 'string').at(-1));
  if (f.required && rng.next() < 0.2)
    return {
      label: `missing required ${f.path.join('.')}`,
      body: withField(body, schema, f.path, undefined, true),
    };
  const table = isIdName(name) ? fieldTable(op.key, name) : undefined;
  const bad: Bad = rng.pick(badValues(f.schema, { otherId: otherId(w, table, rng), missingId: MISSING_ID }));
  return { label: `${f.path.join('.')}: ${bad.label}`, body: withField(body, schema, f.path, bad.value) };
}

const RAW_BODIES: { label: string; contentType?: string; payload: string }[] = [
  { label: 'empty JSON body', contentType: 'application/json', payload: '' },
  { label: 'truncated JSON', contentType: 'application/json', payload: '{' },
  { label: 'JSON array', contentType: 'application/json', payload: '[]' },
  { label: 'JSON array of object', contentType: 'application/json', payload: '[{}]' },
  { label: 'JSON null', contentType: 'application/json', payload: 'null' },
  { label: 'JSON string', contentType: 'application/json', payload: '"x"' },
  { label: 'JSON number', contentType: 'application/json', payload: '1e308' },
  { label: 'NUL in JSON', contentType: 'application/json', payload: '{"a":"\u0000"}' },
  { label: 'text/plain body', contentType: 'text/plain', payload: 'hello' },
  { label: 'XML body', contentType: 'application/xml', payload: '<a/>' },
  { label: 'form body', contentType: 'application/x-www-form-urlencoded', payload: 'a=1' },
  { label: 'body without content type', payload: '{}' },
  { label: 'deep JSON', contentType: 'application/json', payload: `${'['.repeat(5000)}${']'.repeat(5000)}` },
  {
    label: 'deep JSON objects',
    contentType: 'application/json',
    payload: `${'{"a":'.repeat(50000)}1${'}'.repeat(50000)}`,
  },
  { label: 'duplicate keys', contentType: 'application/json', payload: '{"name":"a","name":null}' },
  {
    label: '__proto__ key',
    contentType: 'application/json',
    payload: '{"__proto__":{"x":1},"constructor":{"prototype":{}}}',
  },
];

/** A schema guessed from a valid value, for `data` fields the document describes only as text. */
function schemaOf(value: unknown): Schema {
  if (Array.isArray(value)) return { type: 'array', items: schemaOf(value[0]) };
  if (value !== null && typeof value === 'object')
    return {
      type: 'object',
      properties: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schemaOf(v)])),
    };
  if (typeof value === 'number') return { type: Number.isInteger(value) ? 'integer' : 'number' };
  return { type: typeof value };
}

function multipartMutation(
  op: Operation,
  w: World,
  rng: Prng,
): { label: string; headers: Record<string, string>; payload: string } {
  const b = 'fuzzboundary';
  const file = `--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 garbage\r\n`;
  const field = (name: string, value: string) =>
    `--${b}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const withData = 'data' in (nonNull(op.bodies['multipart/form-data'] ?? {})[0]?.properties ?? {});
  const cases = [
    {
      label: 'multipart without boundary',
      headers: { 'content-type': 'multipart/form-data' },
      payload: file,
    },
    {
      label: 'multipart without closing boundary',
      headers: { 'content-type': `multipart/form-data; boundary=${b}` },
      payload: file,
    },
    {
      label: 'empty multipart',
      headers: { 'content-type': `multipart/form-data; boundary=${b}` },
      payload: '',
    },
    {
      label: 'multipart with closing boundary only',
      headers: { 'content-type': `multipart/form-data; boundary=${b}` },
      payload: `--${b}--\r\n`,
    },
    {
      label: 'multipart file in another part',
      headers: { 'content-type': `multipart/form-data; boundary=${b}` },
      payload: `${file.replace('name="file"', 'name="other"')}--${b}--\r\n`,
    },
    {
      label: 'multipart without file',
      headers: { 'content-type': `multipart/form-data; boundary=${b}` },
      payload: `${field('x', '1')}--${b}--\r\n`,
    },
    {
      label: 'multipart garbage PDF',
      headers: { 'content-type': `multipart/form-data; boundary=${b}` },
      payload: `${file}--${b}--\r\n`,
    },
    {
      label: 'multipart two files',
      headers: { 'content-type': `multipart/form-data; boundary=${b}` },
      payload: `${file}${file}--${b}--\r\n`,
    },
  ];
  const dataBases = MULTIPART_DATA_BASES[op.key];
  if (dataBases?.length)
    for (let i = 0; i < 4; i++) {
      const data = rng.pick(dataBases)(w.named, w).body;
      const m = bodyMutation(op, op.bodies['application/json'] ?? schemaOf(data), data, w, rng);
      cases.push({
        label: `multipart data ${m.label}`,
        headers: { 'content-type': `multipart/form-data; boundary=${b}` },
        payload: `${field('data', JSON.stringify(m.body))}${file}--${b}--\r\n`,
      });
    }
  if (withData)
    cases.push(
      {
        label: 'multipart data not JSON',
        headers: { 'content-type': `multipart/form-data; boundary=${b}` },
        payload: `${field('data', '{')}${file}--${b}--\r\n`,
      },
      {
        label: 'multipart data with NUL',
        headers: { 'content-type': `multipart/form-data; boundary=${b}` },
        payload: `${field('data', '{"description":"a\\u0000b"}')}${file}--${b}--\r\n`,
      },
      {
        label: 'multipart data array',
        headers: { 'content-type': `multipart/form-data; boundary=${b}` },
        payload: `${field('data', '[1]')}--${b}--\r\n`,
      },
    );
  return rng.pick(cases);
}

const BAD_BASIC = [
  'Basic',
  'Basic ',
  'Basic !!!',
  'Basic abc',
  `Basic ${Buffer.from('no-colon').toString('base64')}`,
  `Basic ${Buffer.from(':').toString('base64')}`,
  `Basic ${Buffer.from('id:%E0%A4%A').toString('base64')}`,
  `Basic ${Buffer.from('%00:%00').toString('base64')}`,
  `Basic ${Buffer.from('\u00ff\u00fe:x', 'latin1').toString('base64')}`,
  `Basic ${'A'.repeat(8000)}`,
  'Bearer x',
  'Basic a b c',
];

/** Odd request headers the service reads: byte ranges, validators, idempotency keys. */
function headerMutation(op: Operation, rng: Prng): { label: string; headers: Record<string, string> } {
  const choices: Record<string, string>[] = [
    { 'accept-language': 'x'.repeat(4000) },
    { accept: 'application/xml' },
    { 'x-request-id': 'x'.repeat(2000) },
  ];
  if (op.method === 'GET')
    choices.push(
      { range: 'bytes=abc' },
      { range: 'bytes=999999999999-' },
      { range: 'bytes=-0' },
      { range: 'bytes=5-1' },
      { range: `bytes=${Array.from({ length: 200 }, (_, i) => `${i}-${i}`).join(',')}` },
      { range: 'items=0-1' },
      { 'if-none-match': '"' },
      { 'if-none-match': `"${'x'.repeat(5000)}"` },
      { 'if-modified-since': 'not a date' },
      { 'if-range': '"x"', range: 'bytes=0-1' },
    );
  if (op.method === 'POST')
    choices.push(
      { 'idempotency-key': '' },
      { 'idempotency-key': 'x'.repeat(5000) },
      { 'idempotency-key': '\u00e9\u00e9' },
      { 'idempotency-key': ' ' },
    );
  const headers = rng.pick(choices);
  return { label: `headers ${JSON.stringify(headers).slice(0, 60)}`, headers };
}

/** One bad request for `op`: a path, query, body, raw-body, multipart or credentials mutation. */
export function makeRequest(op: Operation, w: World, rng: Prng): FuzzRequest {
  const b = base(op, w, rng);
  const params: Record<string, string | number> = {};
  for (const p of op.params.filter((x) => x.in === 'path'))
    params[p.name] = b.params?.[p.name] ?? ownParam(op, p.name, w, rng);
  const hasJson = 'application/json' in op.bodies;
  const hasMultipart = 'multipart/form-data' in op.bodies;
  const pathParams = op.params.filter((x) => x.in === 'path');
  const strategies: string[] = ['query'];
  // Most odd headers are harmless on a valid request, which then succeeds: used sparingly.
  if (rng.next() < (op.method === 'GET' ? 0.3 : 0.1)) strategies.push('headers');
  if (pathParams.length) strategies.push('path', 'path');
  if (hasJson) strategies.push('body', 'body', 'body', 'body', 'raw');
  else if (op.method !== 'GET') strategies.push('raw');
  if (hasMultipart) strategies.push('multipart', 'multipart');
  if (op.key === OAUTH_TOKEN) strategies.push('basic', 'basic');
  const strategy = rng.pick(strategies);
  const req = (
    label: string,
    url: string,
    extra: { headers?: Record<string, string>; payload?: string } = {},
  ): FuzzRequest => ({
    op: op.key,
    label,
    method: op.method,
    url,
    headers: extra.headers ?? {},
    ...(extra.payload !== undefined ? { payload: extra.payload } : {}),
  });
  const validBody: { headers?: Record<string, string>; payload?: string } =
    hasJson && op.method !== 'GET' && op.method !== 'DELETE' ? json(b.body) : {};
  switch (strategy) {
    case 'path': {
      const p = rng.pick(pathParams);
      const other = otherId(w, pathParamTable(op.path, p.name), rng);
      const values = [
        ...BAD_PATH_VALUES,
        String(MISSING_ID),
        ...(other !== undefined ? [String(other), String(other)] : []),
      ];
      const v = rng.pick(values);
      return req(
        `path ${p.name}=${v}${v === String(other) ? " (another tenant's)" : ''}`,
        buildUrl(op, { ...params, [p.name]: v }),
        validBody,
      );
    }
    case 'query': {
      const q = queryMutation(op, w, rng);
      return req(q.label, buildUrl(op, params, q.query), validBody);
    }
    case 'headers': {
      const h = headerMutation(op, rng);
      return req(h.label, buildUrl(op, params), {
        ...validBody,
        headers: { ...validBody.headers, ...h.headers },
      });
    }
    case 'body': {
      const m = bodyMutation(op, op.bodies['application/json']!, b.body, w, rng);
      return req(m.label, buildUrl(op, params), json(m.body));
    }
    case 'raw': {
      const r = rng.pick(RAW_BODIES);
      return req(r.label, buildUrl(op, params), {
        headers: r.contentType ? { 'content-type': r.contentType } : {},
        payload: r.payload,
      });
    }
    case 'multipart': {
      const m = multipartMutation(op, w, rng);
      return req(m.label, buildUrl(op, params), { headers: m.headers, payload: m.payload });
    }
    default: {
      const authorization = rng.pick(BAD_BASIC);
      return req(`Authorization: ${authorization.slice(0, 40)}`, buildUrl(op, params), {
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials',
      });
    }
  }
}
