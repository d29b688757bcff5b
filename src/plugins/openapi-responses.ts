import { API_PREFIX } from '../config.js';
import { ERROR_CODES, type ErrorCode } from '../shared/errors.js';
import { problemType } from './problem-types.js';

/**
 * Completes every operation of the published document with the answers and headers the
 * service really gives, by rule from what the operation declares (its security, parameters,
 * body, success answers), so that a route added later is described without anybody writing
 * it down; DOMAIN_ERRORS adds the state refusals that only the module knows. The result is
 * checked from the outside: scripts/openapi-coverage.ts fails `npm test` when the suite saw
 * an (operation, status) the document does not declare.
 *
 * It works on the document (fastify-swagger's transformObject), not on the routes: the
 * response schemas of routes are compiled into serializers, and problem answers never go
 * through them (errors.ts sends them as strings), so describing them there would cost start-up
 * time for nothing.
 */

type Codes = Partial<Record<number, ErrorCode[]>>;

/**
 * State refusals and other codes thrown by a module's service, per operation (see where each
 * code of shared/errors.ts is thrown). Everything else follows from the rules below.
 */
export const DOMAIN_ERRORS: Record<string, Codes> = {
  createClient: { 409: ['external_id_taken', 'shortcode_taken'] },
  setClientExternalIdentifier: { 409: ['external_id_taken', 'external_id_set'] },
  setClientShortcode: { 409: ['shortcode_taken'] },
  createCompany: { 409: ['external_id_taken'] },
  setCompanyExternalIdentifier: { 409: ['external_id_taken', 'external_id_set'] },
  createContact: { 409: ['external_id_taken', 'conflict'] },
  updateContact: { 409: ['conflict'] },
  setContactExternalIdentifier: { 409: ['external_id_taken', 'external_id_set'] },
  attachContactCompany: { 409: ['conflict'] },
  detachContactCompany: { 409: ['conflict'] },
  createTask: { 409: ['external_id_taken'] },
  updateTask: { 409: ['conflict'] },
  deleteTask: { 409: ['conflict'] },
  setTaskExternalIdentifier: { 409: ['external_id_taken', 'external_id_set', 'conflict'] },
  uploadTaskFile: { 409: ['conflict'] },
  createTaskComment: { 409: ['conflict'] },
  updateTaskComment: { 403: ['not_author'] },
  deleteTaskComment: { 403: ['not_author'] },
  uploadTaskCommentFile: { 403: ['not_author'] },
  createOutgoingInvoice: { 422: ['unprocessable'] },
  updateOutgoingInvoice: { 409: ['invoice_booked', 'plan_final_invoice'], 422: ['unprocessable'] },
  deleteOutgoingInvoice: {
    409: ['invoice_booked', 'plan_final_invoice', 'plan_has_booked_invoices'],
  },
  forceDeleteOutgoingInvoice: { 409: ['plan_final_invoice', 'plan_has_booked_invoices'] },
  bookOutgoingInvoice: {
    409: ['already_booked', 'invoice_number_taken', 'conflict'],
    422: ['unprocessable'],
  },
  uploadExternalOutgoingInvoice: {
    409: ['invoice_number_taken', 'already_booked', 'conflict'],
    // Its `data` part is JSON text, so the rule on body fields does not see the *_id fields in it.
    422: ['unprocessable', 'invalid_reference'],
  },
  createRecurringPlan: { 422: ['unprocessable'] },
  createPartialPlan: { 422: ['unprocessable'] },
  generateRecurringPlanInvoices: { 409: ['conflict'], 422: ['unprocessable'] },
  createPartialPlanInvoice: { 409: ['conflict'], 422: ['unprocessable'] },
  downloadOutgoingInvoicePdf: { 422: ['unprocessable'] },
  downloadOutgoingInvoiceXml: { 409: ['invoice_not_booked'], 422: ['unprocessable'] },
  createOutgoingInvoicePayment: { 409: ['conflict'] },
  settleOutgoingInvoiceWithCredit: { 409: ['conflict'] },
  createIncomingInvoicePayment: { 409: ['conflict'] },
  settleIncomingInvoiceWithCredit: { 409: ['conflict'] },
  createIncomingInvoice: { 503: ['unavailable'] },
  updateIncomingInvoice: { 409: ['document_has_payments', 'conflict'] },
  resendWebhookDelivery: { 409: ['conflict'] },
  listIntegrationGrants: { 403: ['forbidden'] },
  getAccountProfileLogo: { 404: ['not_found'] },
  createOutgoingInvoiceFromEfforts: {
    409: ['effort_already_billed'],
    422: ['nothing_to_bill', 'unprocessable'],
  },
  createOfferInvoice: { 409: ['offer_already_invoiced', 'offer_not_accepted'], 422: ['invalid_reference'] },
};

// Writes dated into the books meet the period lock (issue 41, src/modules/exports/exports.public.ts).
for (const op of [
  'bookOutgoingInvoice',
  'forceDeleteOutgoingInvoice',
  'createOutgoingInvoicePayment',
  'settleOutgoingInvoiceWithCredit',
  'createIncomingInvoice',
  'createIncomingInvoicePayment',
  'settleIncomingInvoiceWithCredit',
  'updateIncomingInvoiceBooking',
  'deleteIncomingInvoiceBooking',
  // Changing an incoming invoice that has bookings in a locked month.
  'updateIncomingInvoice',
  // Stored booked, dated by the caller.
  'uploadExternalOutgoingInvoice',
  // With `book: true`.
  'sendOutgoingInvoice',
  // Undoing a match deletes its payments.
  'unmatchBankTransaction',
]) {
  const codes = DOMAIN_ERRORS[op] ?? {};
  codes[409] = [...(codes[409] ?? []), 'period_locked'];
  DOMAIN_ERRORS[op] = codes;
}
DOMAIN_ERRORS.createDatevExport = { 422: ['unprocessable'] };
// A payment account or invoice named in the form or body that is not the account's.
DOMAIN_ERRORS.importBankStatement = { ...DOMAIN_ERRORS.importBankStatement, 422: ['invalid_reference'] };
DOMAIN_ERRORS.matchBankTransaction = { ...DOMAIN_ERRORS.matchBankTransaction, 422: ['invalid_reference'] };
// SEPA files: invoices named inside `invoices`; a file the payment rules still refuse, or no creditor identifier.
DOMAIN_ERRORS.createSepaCreditTransfer = { 422: ['invalid_reference', 'unprocessable'] };
DOMAIN_ERRORS.createSepaDirectDebit = { 422: ['invalid_reference', 'unprocessable'] };
DOMAIN_ERRORS.createClientSepaMandate = { 409: ['already_exists'] };

/** Operations whose 202 stores a record (being completed in the background) at `Location`. */
const ACCEPTED_WITH_LOCATION = new Set(['createIncomingInvoice']);

/** The code an answer of this status gives when no rule names a more precise one. */
const FALLBACK: Partial<Record<number, ErrorCode>> = {
  400: 'bad_request',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  416: 'range_not_satisfiable',
  422: 'validation_failed',
  500: 'internal',
  503: 'unavailable',
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Every header the service sends or reads, once, referenced from the operations. */
export const HEADERS = {
  RateLimit: {
    description:
      'IETF RateLimit header: the requests left in the current window and the seconds until it resets, e.g. `"default";r=42;t=17`. Sent when rate limiting is on (RATE_LIMIT_PER_MINUTE > 0).',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'IETF RateLimit-Policy header: the budget per window, e.g. `"default";q=600;w=60`.',
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 0 },
  },
  'WWW-Authenticate': {
    description:
      'RFC 6750 challenge, e.g. `Bearer realm="api", error="invalid_token", error_description="…"` (401) or `Bearer error="insufficient_scope", scope="client:write"` (403).',
    schema: { type: 'string' },
  },
  Location: { description: 'The address of the created resource.', schema: { type: 'string' } },
  Link: {
    description:
      'RFC 8288 links to the `first`, `prev`, `next` and `last` pages, e.g. `</api/v1/clients?page=2&per_page=50>; rel="next"`.',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this answer is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Cache-Control': {
    description:
      'Downloads: `private, max-age=0, must-revalidate` (revalidate with the ETag). Token answers: `no-store`.',
    schema: { type: 'string' },
  },
  ETag: { description: 'Strong validator: the SHA-256 of the file, quoted.', schema: { type: 'string' } },
  'Content-Disposition': {
    description: 'The file name (RFC 6266), `attachment` or `inline`.',
    schema: { type: 'string' },
  },
  'Accept-Ranges': { description: '`bytes`: byte ranges may be requested.', schema: { type: 'string' } },
  'Content-Range': {
    description: 'The bytes sent (`bytes 0-99/1234`), or on 416 the size (`bytes */1234`).',
    schema: { type: 'string' },
  },
} as const;

const PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Any unique string (at most 255 characters; a UUID is fine). The same key with the same body within 24 hours replays the first answer (`Idempotent-Replayed: true`); with a different body it is refused with 422 `idempotency_key_reused`; while the first request still runs, 409 `idempotency_in_progress` with `Retry-After`.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  },
  Range: {
    name: 'Range',
    in: 'header',
    required: false,
    description: 'One byte range (RFC 9110), e.g. `bytes=0-1023`: answered 206.',
    schema: { type: 'string' },
  },
  IfRange: {
    name: 'If-Range',
    in: 'header',
    required: false,
    description: 'An ETag: the Range applies only while the file still has it.',
    schema: { type: 'string' },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'ETags the client holds: answered 304 when the file still has one of them.',
    schema: { type: 'string' },
  },
} as const;

/** A part of the document: plain JSON, shaped by the OpenAPI specification, not by a type here. */
// biome-ignore lint/suspicious/noExplicitAny: see above
export type Json = Record<string, any>;

/** Whether another path of the document matches this one with a fixed segment for a parameter. */
function hasFixedSibling(doc: Json, path: string): boolean {
  const mine = path.split('/');
  const isParam = (s: string) => s.startsWith('{');
  return Object.keys(doc.paths ?? {}).some((other) => {
    const theirs = other.split('/');
    if (other === path || theirs.length !== mine.length) return false;
    let fixedForParam = false;
    for (let i = 0; i < mine.length; i++) {
      if (mine[i] === theirs[i]) continue;
      if (!isParam(mine[i]!) || isParam(theirs[i]!)) return false;
      fixedForParam = true;
    }
    return fixedForParam;
  });
}

/** Resolves `#/components/schemas/X` once (enough for the request and answer bodies here). */
function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  const target = schema?.$ref;
  if (typeof target !== 'string' || !target.startsWith('#/components/schemas/')) return schema;
  return doc.components?.schemas?.[target.slice('#/components/schemas/'.length)];
}

const isInteger = (s: Json | undefined): boolean =>
  s?.type === 'integer' || (Array.isArray(s?.type) && s.type.includes('integer'));

/** Whether the body names other records by id (`client_id`, `project_group_ids`): integers, not `vat_id`. */
function referencesRecords(doc: Json, op: Json): boolean {
  for (const media of Object.values<Json>(op.requestBody?.content ?? {})) {
    const props = resolve(doc, media.schema)?.properties ?? {};
    for (const [name, prop] of Object.entries<Json>(props)) {
      if (!/_ids?$/.test(name)) continue;
      const schema = resolve(doc, prop);
      if (isInteger(schema) || isInteger(resolve(doc, schema?.items))) return true;
      if ((schema?.anyOf ?? []).some((s: Json) => isInteger(resolve(doc, s)))) return true;
    }
  }
  return false;
}

/** Codes the route's own texts name (`403 \`forbidden\` otherwise`): its author documented them. */
function namedCodes(op: Json): ErrorCode[] {
  const texts = [
    op.summary,
    op.description,
    ...Object.values<Json>(op.responses ?? {}).map((r) => r.description),
  ];
  const found = new Set<ErrorCode>();
  for (const m of texts.join('\n').matchAll(/`(?:\d{3} )?([a-z_]+)`/g))
    if (m[1]! in ERROR_CODES) found.add(m[1] as ErrorCode);
  return [...found];
}

function isList(doc: Json, response: Json | undefined): boolean {
  const schema = resolve(doc, response?.content?.['application/json']?.schema);
  return Boolean(schema?.properties?.meta && schema.properties.data?.type === 'array');
}

/** The (status → problem codes) an operation can answer, by rule. */
export function errorCodesFor(doc: Json, method: string, path: string, op: Json, operationId: string): Codes {
  const codes: Record<number, Set<ErrorCode>> = {};
  const add = (status: number, ...list: ErrorCode[]) => {
    codes[status] ??= new Set();
    for (const c of list) codes[status].add(c);
  };
  const api = path.startsWith(`${API_PREFIX}/`);
  const secured = Array.isArray(op.security) && op.security.length > 0;
  const write = method !== 'get';
  const media = Object.keys(op.requestBody?.content ?? {});

  // Any request may meet a database that is away (503, Retry-After) or fail unexpectedly.
  add(500, 'internal');
  add(503, 'unavailable');
  if (write) {
    add(503, 'read_only');
    add(507, 'storage_full');
  }
  if (!api) return finish(codes, op);
  // Unknown query parameters are refused (strict-input.ts); the rate limit covers the whole API.
  add(422, 'validation_failed');
  add(429, 'rate_limited');
  if (secured) {
    add(401, 'unauthorized', 'invalid_token');
    add(403, 'insufficient_scope');
  }
  if ((op.parameters ?? []).some((p: Json) => p.in === 'path')) {
    add(404, 'not_found');
    // A path parameter longer than the router takes (maxParamLength) is refused before routing.
    add(414, 'uri_too_long');
  }
  // A fixed path beside this one (`/payments/outgoing-invoice` beside `/payments/{id}`) asked
  // with a method it lacks is answered here: 405 with the fixed path's own methods.
  if (hasFixedSibling(doc, path)) add(405, 'method_not_allowed');
  if (media.length > 0 || write) {
    // Any body the route does not parse (text/plain, XML …) is a 415; any beyond the limit a 413.
    add(415, 'unsupported_media_type');
    add(413, 'payload_too_large');
    // Every route parses a JSON body when one is sent (an upload route too, before it refuses it).
    add(400, 'bad_request', 'invalid_json');
    if (media.includes('multipart/form-data')) add(400, 'invalid_multipart');
  }
  if (referencesRecords(doc, op)) add(422, 'invalid_reference');
  // A unique value (number, external id, name) taken by a concurrent write is caught by the database.
  if (write && method !== 'delete') add(409, 'already_exists');
  if (method === 'post' && secured) {
    add(409, 'idempotency_in_progress');
    add(422, 'idempotency_key_reused');
  }
  if (op.responses?.['206']) add(416, 'range_not_satisfiable');
  for (const [status, list] of Object.entries(DOMAIN_ERRORS[operationId] ?? {}))
    add(Number(status), ...list!);
  for (const code of namedCodes(op)) add(ERROR_CODES[code].status, code);
  return finish(codes, op);
}

function finish(codes: Record<number, Set<ErrorCode>>, op: Json): Codes {
  // An operation that answers its refusals in a format of its own (the OAuth token endpoint:
  // RFC 6749 §5.2 bodies, never 422) documents them itself; only 429 and 5xx are problems there.
  const own = Object.entries<Json>(op.responses ?? {}).some(([s, r]) => Number(s) >= 400 && !isProblem(r));
  if (own)
    for (const s of Object.keys(codes).map(Number)) if (s >= 400 && s < 500 && s !== 429) delete codes[s];
  // Statuses the route declares itself keep their answers; a problem answer without a rule
  // gets the code that status always has.
  for (const status of Object.keys(op.responses ?? {}).map(Number)) {
    const fallback = FALLBACK[status];
    if (status >= 400 && !codes[status] && fallback && isProblem(op.responses[status])) {
      codes[status] = new Set([fallback]);
    }
  }
  return Object.fromEntries(Object.entries(codes).map(([s, set]) => [s, [...set].sort()]));
}

const isProblem = (response: Json | undefined) =>
  response === undefined || Boolean(response.content?.['application/problem+json']);

function problemAnswer(status: number, codes: ErrorCode[], described?: string) {
  const titles = codes.map((c) => `\`${c}\` (${ERROR_CODES[c].title})`).join(', ');
  return {
    description: `${described && described !== 'Default Response' ? `${described}. ` : ''}Problem codes: ${titles}.`,
    'x-problem-codes': codes,
    content: {
      'application/problem+json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/Problem' },
            { type: 'object', properties: { code: { type: 'string', enum: codes } } },
          ],
        },
        example: {
          type: problemType(codes[0]!),
          title: ERROR_CODES[codes[0]!].title,
          status,
          detail: ERROR_CODES[codes[0]!].title,
          code: codes[0],
        },
      },
    },
  };
}

function withHeaders(response: Json, names: (keyof typeof HEADERS)[]) {
  response.headers ??= {};
  for (const name of names) response.headers[name] ??= ref(name);
}

/** Adds the answers, problem codes and headers of one operation (mutates `op`). */
/** What a success answer is, for routes that name only its schema (Fastify says "Default Response"). */
function successDescription(method: string, status: number, list: boolean): string {
  if (status === 201) return 'Created: the new record; its address in `Location`';
  if (status === 202) return 'Accepted: queued, done in the background';
  if (status === 204) return 'Done; no content';
  if (status === 206) return 'The requested part of the file';
  if (status === 200 && method === 'get') return list ? 'One page of the list' : 'The record';
  if (status === 200) return 'Done: the record as it is now';
  return 'Success';
}

/**
 * Rules the validation enforces with keywords of its own, restated in standard JSON Schema for
 * readers of the document (inline input schemas only: components are answers too):
 * `x-max-decimals: n` (checked on the number's shortest decimal form, validation.ts) as
 * `multipleOf: 10^-n`; a `sort` parameter's fields (`x-sortable`, checked by paging.ts with a
 * message naming them) as a pattern that admits only those fields.
 */
const VALUES = new Set(['examples', 'default', 'enum', 'const']);

function documentInputRules(schema: Json): void {
  if (Array.isArray(schema)) {
    for (const s of schema) documentInputRules(s);
    return;
  }
  if (!schema || typeof schema !== 'object' || schema.$ref) return;
  const decimals = schema['x-max-decimals'];
  if (typeof decimals === 'number' && schema.multipleOf === undefined)
    schema.multipleOf = Number(`1e-${decimals}`);
  const sortable = schema['x-sortable'];
  if (Array.isArray(sortable)) {
    const field = `-?(${sortable.join('|')})`;
    schema.pattern = `^${field}(,${field})*$`;
  }
  for (const [key, value] of Object.entries<Json>(schema))
    if (typeof value === 'object' && !VALUES.has(key)) documentInputRules(value);
}

export function completeOperation(doc: Json, method: string, path: string, op: Json, operationId: string) {
  const api = path.startsWith(`${API_PREFIX}/`);
  const secured = Array.isArray(op.security) && op.security.length > 0;
  op.responses ??= {};
  const codes = errorCodesFor(doc, method, path, op, operationId);
  for (const [status, list] of Object.entries(codes)) {
    const existing = op.responses[status];
    if (existing && !isProblem(existing)) continue; // e.g. the OAuth token endpoint's RFC 6749 bodies
    op.responses[status] = problemAnswer(Number(status), list!, existing?.description);
  }

  // A JSON body without required fields may be left out (strict-input.ts takes it as `{}`).
  const body = op.requestBody?.content;
  if (body && Object.keys(body).length === 1 && body['application/json']) {
    const schema = resolve(doc, body['application/json'].schema);
    if (!schema?.required?.length && !schema?.minProperties) op.requestBody.required = false;
  }

  op.parameters ??= [];
  const params: Json[] = op.parameters;
  for (const p of params) if (p.schema) documentInputRules(p.schema);
  for (const media of Object.values<Json>(op.requestBody?.content ?? {}))
    if (media.schema) documentInputRules(media.schema);
  const addParam = (p: Json) => {
    if (!params.some((q) => q.in === p.in && q.name.toLowerCase() === p.name.toLowerCase())) params.push(p);
  };
  if (method === 'post' && secured) addParam(PARAMETERS.IdempotencyKey);
  const download = Boolean(op.responses['206']);
  if (download) {
    addParam(PARAMETERS.Range);
    addParam(PARAMETERS.IfRange);
    addParam(PARAMETERS.IfNoneMatch);
    op.responses['304'] ??= { description: 'Not modified: the file still has an ETag the client named.' };
  }
  if (params.length === 0) delete op.parameters;

  for (const [status, response] of Object.entries<Json>(op.responses)) {
    const s = Number(status);
    if (response.description === 'Default Response' || !response.description)
      response.description = successDescription(method, s, isList(doc, response));
    const names: (keyof typeof HEADERS)[] = [];
    if (api) names.push('RateLimit', 'RateLimit-Policy');
    if (s === 201 || (s === 202 && ACCEPTED_WITH_LOCATION.has(operationId))) names.push('Location');
    if (s === 200 && isList(doc, response)) names.push('Link');
    if (s === 429 || s === 503) names.push('Retry-After');
    if (s === 409 && codes[409]?.includes('idempotency_in_progress')) names.push('Retry-After');
    if (s === 401 || (s === 403 && secured)) names.push('WWW-Authenticate');
    if (s < 300 && method === 'post' && secured) names.push('Idempotent-Replayed');
    if (download && (s === 200 || s === 206))
      names.push('ETag', 'Content-Disposition', 'Accept-Ranges', 'Cache-Control');
    // RFC 6749 §5.1/§5.2: token answers and their refusals are never cached.
    if (operationId === 'issueOAuthToken' && s < 500 && s !== 429) names.push('Cache-Control');
    if (download && (s === 206 || s === 416)) names.push('Content-Range');
    if (download && s === 304) names.push('ETag');
    withHeaders(response, names);
  }
}
