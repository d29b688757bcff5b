import { STATUS_CODES } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError, ERROR_CODES, type ErrorCode } from '../shared/errors.js';

/**
 * The `type` of a problem document: a path of this service (RFC 9457 allows a URI reference;
 * it resolves against the request's URL, as `instance` does), where a page says what the code
 * means. `not_found` → `/problems/not-found`.
 */
export const problemType = (code: ErrorCode): string => `/problems/${code.replace(/_/g, '-')}`;

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];
const BY_SLUG = new Map(CODES.map((c) => [problemType(c).slice('/problems/'.length), c]));

/** What some codes carry besides the members every problem has. */
const EXTRA: Partial<Record<ErrorCode, string>> = {
  validation_failed: '<code>errors</code> lists each bad field with its message.',
  insufficient_scope: '<code>required_scopes</code> lists the scopes the route needs.',
  invalid_token: 'The answer has a <code>WWW-Authenticate: Bearer</code> header.',
  unauthorized: 'The answer has a <code>WWW-Authenticate: Bearer</code> header.',
  rate_limited:
    'The answer has <code>Retry-After</code>, <code>RateLimit</code> and <code>RateLimit-Policy</code> headers.',
  unavailable: 'The answer has a <code>Retry-After</code> header: try again then.',
  idempotency_in_progress: 'The answer has a <code>Retry-After</code> header: try again then.',
  cursor_expired:
    '<code>cursor</code> is where the kept entries begin and <code>latest_cursor</code> the feed’s end now. Resync: read the lists, then follow the feed from either (see the change feed guide).',
};

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><link rel="stylesheet" href="/assets/web.css"></head><body><main class="card">${body}</main></body></html>\n`;
}

const MEMBERS = `<p>Every error of this service is an RFC 9457 problem document
(<code>application/problem+json</code>): <code>type</code> (this page), <code>title</code>,
<code>status</code>, <code>detail</code> (what went wrong in this request), <code>code</code> (the
stable value a program branches on) and <code>instance</code> (the request's path).</p>`;

function codePage(code: ErrorCode): string {
  const { status, title } = ERROR_CODES[code];
  const extra = EXTRA[code] ? `<p>${EXTRA[code]}</p>` : '';
  return page(
    `${code}: ${title}`,
    `<h1><code>${code}</code></h1><p>${esc(title)}.</p><p>HTTP status ${status} (${esc(STATUS_CODES[status] ?? '')}).</p>${extra}${MEMBERS}<p><a href="/problems">All problem codes</a></p>`,
  );
}

function indexPage(): string {
  const rows = CODES.map((c) => {
    const { status, title } = ERROR_CODES[c];
    return `<tr><td><a href="${problemType(c)}"><code>${c}</code></a></td><td>${status}</td><td>${esc(title)}</td></tr>`;
  }).join('');
  return page(
    'Problem codes',
    `<h1>Problem codes</h1>${MEMBERS}<table><thead><tr><th>code</th><th>status</th><th>meaning</th></tr></thead><tbody>${rows}</tbody></table>`,
  );
}

/** `GET /problems` and `GET /problems/{type}`: the pages the problem `type`s point at (public, static). */
export async function problemTypeRoutes(app: FastifyInstance): Promise<void> {
  const pages = new Map(CODES.map((c) => [c, codePage(c)]));
  const index = indexPage();
  const send = (reply: FastifyReply, html: string) =>
    reply
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy':
          "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'",
        'x-content-type-options': 'nosniff',
        'cache-control': 'public, max-age=3600',
      })
      .send(html);
  const opts = { config: { public: true }, schema: { hide: true } };
  app.get('/problems', opts, async (_req, reply) => send(reply, index));
  app.get<{ Params: { slug: string } }>('/problems/:slug', opts, async (req, reply) => {
    const code = BY_SLUG.get(req.params.slug);
    if (!code) throw new AppError('not_found', 'No such problem type');
    return send(reply, pages.get(code)!);
  });
}
