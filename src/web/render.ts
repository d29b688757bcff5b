import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { langOf, translator } from './i18n.js';
import { commitCsrfCookie, csrfToken } from './session.js';

const here = dirname(fileURLToPath(import.meta.url));

// Eta escapes every `<%= %>` output; `<%~ %>` (unescaped) is only for the layout's body.
const eta = new Eta({ views: join(here, 'views'), cache: true, autoEscape: true, autoTrim: false });

/**
 * A template from elsewhere (e.g. the OAuth consent page), usable by name (`@consent`) in
 * render(); it may extend the layout with `<% layout('/layout') %>`.
 */
export function registerView(name: `@${string}`, template: string): void {
  eta.loadTemplate(name, template);
}

export const registerViewFile = (name: `@${string}`, file: string) =>
  registerView(name, readFileSync(file, 'utf8'));

/**
 * Content-Security-Policy of every page: no scripts at all, styles from our own file, no
 * framing (clickjacking). No `form-action`: Chromium applies it to the redirects that follow
 * a form (sign-in → OAuth authorization → the app's redirect URI on another origin).
 */
export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

/** The headers of every page; a header the handler set already (e.g. a stricter referrer policy) stays. */
export function pageHeaders(reply: FastifyReply): void {
  const headers: Record<string, string> = {
    'content-security-policy': PAGE_CSP,
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    vary: 'accept-language',
  };
  for (const [name, value] of Object.entries(headers)) if (!reply.hasHeader(name)) reply.header(name, value);
}

/** What every view gets: `t` (texts in the browser's language), `lang`, `csrf` and `data`. */
function viewData(req: FastifyRequest, data: Record<string, unknown>) {
  const lang = langOf(req);
  return { lang, t: translator(lang), csrf: csrfToken(req), ...data };
}

function sendPage(req: FastifyRequest, reply: FastifyReply, html: string, status: number): FastifyReply {
  commitCsrfCookie(req, reply);
  pageHeaders(reply);
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}

/**
 * Renders a page of views/ (or a registered `@view`) with the layout's data: `t` (texts in
 * the browser's language), `lang`, `csrf` (the form token) and whatever `data` adds.
 */
export function render(
  req: FastifyRequest,
  reply: FastifyReply,
  view: string,
  data: Record<string, unknown> = {},
  status = 200,
): FastifyReply {
  return sendPage(req, reply, eta.render(view, viewData(req, data)), status);
}

/**
 * Renders `view` as the body of `layout` (e.g. the console's pages inside the console frame):
 * the view gets the same data as with render() and does not name a layout itself.
 */
export function renderWithin(
  req: FastifyRequest,
  reply: FastifyReply,
  layout: string,
  view: string,
  data: Record<string, unknown> = {},
  status = 200,
): FastifyReply {
  const it = viewData(req, data);
  return sendPage(req, reply, eta.render(layout, { ...it, body: eta.render(view, it) }), status);
}
