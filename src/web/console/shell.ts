import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../shared/errors.js';
import { addMessages, langOf, type Translate, translator } from '../i18n.js';
import { renderWithin } from '../render.js';
import { checkCsrf, type SessionUser, sessionUser } from '../session.js';
import { accountName } from '../sessions.repository.js';

/**
 * The frame of every console page (issue 13): the navigation, the signed-in user, the
 * language switch and sign-out around a page's own view.
 *
 *   app.get('/console/things', async (req, reply) => {
 *     const user = await requireAdmin(req);          // 403 page for a member
 *     return consoleView(req, reply, 'console-things', { title: t('…'), rows });
 *   });
 *   app.post('/console/things', async (req, reply) => { checkCsrf(req); await requireAdmin(req); … });
 *
 * Views live in src/web/views (or are registered with registerViewFile) and do not name a
 * layout: consoleView puts them into it. Every console route already has a session (the
 * console's hook sends visitors without one to sign in), so pages only check the role.
 */

/** The console's sections in the order of the navigation; a page is current by its path prefix. */
export const CONSOLE_NAV = [
  { key: 'dashboard', href: '/console' },
  { key: 'company', href: '/console/company' },
  { key: 'users', href: '/console/users' },
  { key: 'integrations', href: '/console/integrations' },
  { key: 'webhooks', href: '/console/webhooks' },
  { key: 'bank', href: '/console/bank' },
  { key: 'accounting', href: '/console/accounting' },
  { key: 'audit', href: '/console/audit' },
] as const;

addMessages({
  en: {
    'console.skip': 'Skip to content',
    'console.navLabel': 'Console',
    'console.nav.dashboard': 'Dashboard',
    'console.nav.company': 'Company',
    'console.nav.users': 'Users',
    'console.nav.integrations': 'Integrations',
    'console.nav.webhooks': 'Webhooks',
    'console.nav.bank': 'Bank',
    'console.nav.accounting': 'Accounting',
    'console.nav.audit': 'Audit',
    'console.forbidden.title': 'Not allowed',
    'console.forbidden':
      'This page is for administrators of the account. Ask an administrator if you need access.',
    'console.backToMe': 'Back to your account',
    'console.backToConsole': 'Back to the console',
    'console.open': 'Open the console',
    'console.saved': 'Saved.',
    'console.fixErrors': 'Please correct the marked fields.',
  },
  de: {
    'console.skip': 'Zum Inhalt springen',
    'console.navLabel': 'Konsole',
    'console.nav.dashboard': 'Übersicht',
    'console.nav.company': 'Firma',
    'console.nav.users': 'Benutzer',
    'console.nav.integrations': 'Integrationen',
    'console.nav.webhooks': 'Webhooks',
    'console.nav.bank': 'Bank',
    'console.nav.accounting': 'Buchhaltung',
    'console.nav.audit': 'Protokoll',
    'console.forbidden.title': 'Nicht erlaubt',
    'console.forbidden':
      'Diese Seite ist für Administratoren des Kontos. Bitten Sie eine Administratorin oder einen Administrator um Zugang.',
    'console.backToMe': 'Zurück zu Ihrem Konto',
    'console.backToConsole': 'Zurück zur Konsole',
    'console.open': 'Konsole öffnen',
    'console.saved': 'Gespeichert.',
    'console.fixErrors': 'Bitte korrigieren Sie die markierten Felder.',
  },
});

// Optional in the schema, so that a form without it is refused by checkCsrf (403), not as malformed.
export const CsrfField = Type.Optional(Type.String({ maxLength: 200 }));
/** A form that carries nothing but its CSRF token (revoke, resend, …). */
export const CsrfOnly = Type.Object({ _csrf: CsrfField });
/** Enable/disable forms: `active` 1 or 0. */
export const ActiveForm = Type.Object({
  _csrf: CsrfField,
  active: Type.Union([Type.Literal('0'), Type.Literal('1')]),
});

/** The notice a redirect after a change asked for (`?done=<key>`), as `<prefix>.done.<key>`. */
export function doneNotice(req: FastifyRequest, prefix: string): string {
  const done = (req.query as { done?: string }).done;
  return done ? translator(langOf(req))(`${prefix}.done.${done}`) : '';
}

/**
 * The signed-in admin of this request. Throws 403 `forbidden` (the console shows a page
 * saying so) for a member, 401 `unauthorized` without a session.
 */
export async function requireAdmin(req: FastifyRequest): Promise<SessionUser> {
  const user = await sessionUser(req);
  if (!user) throw new AppError('unauthorized', 'no session');
  if (user.role !== 'admin') throw new AppError('forbidden', 'admin only');
  return user;
}

/** `2026-11-23 14:05 UTC`: one unambiguous form for both languages. */
export const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** A page of the console, shown again with more data (a message, a form) and a status. */
export type PageAgain = (
  req: FastifyRequest,
  reply: FastifyReply,
  extra?: Record<string, unknown>,
  status?: number,
) => Promise<FastifyReply>;

/** Answers a refused change (409 `conflict`). */
export type Refusal = (req: FastifyRequest, reply: FastifyReply, err: AppError) => Promise<FastifyReply>;

export const isConflict = (err: unknown): err is AppError =>
  err instanceof AppError && err.code === 'conflict';

/**
 * A refused change (a revoked integration, the last admin, a disabled webhook): `page` again,
 * status 409, with `message` saying why (`reason`: the error's `extra.reason`).
 */
export const refusedOn =
  (page: PageAgain, message: (t: Translate, reason: unknown) => string): Refusal =>
  (req, reply, err) =>
    page(req, reply, { error: message(translator(langOf(req)), err.extra?.reason) }, 409);

/**
 * The handler of a console form that changes something: the CSRF token checked, an admin
 * required, then `act` (which answers, mostly with a redirect). A 409 `conflict` goes to
 * `refused`, which shows the page again saying why; any other error propagates.
 */
export const adminForm =
  (
    act: (user: SessionUser, req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>,
    refused?: Refusal,
  ) =>
  async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    checkCsrf(req);
    const user = await requireAdmin(req);
    try {
      return await act(user, req, reply);
    } catch (err) {
      if (!refused || !isConflict(err)) throw err;
      return refused(req, reply, err);
    }
  };

/**
 * A console form that makes one change and redirects (303) to the page that shows it:
 * `change` gets the path parameters and the form, `to` says where to go after it.
 */
export const adminChange = <P, B = unknown>(
  change: (user: SessionUser, params: P, body: B) => Promise<unknown>,
  to: (params: P, body: B) => string,
  refused?: Refusal,
) =>
  adminForm(async (user, req, reply) => {
    const params = req.params as P;
    const body = req.body as B;
    await change(user, params, body);
    return reply.redirect(to(params, body), 303);
  }, refused);

const pathOf = (url: string) => url.split('?')[0] ?? '/';

/**
 * Renders `view` inside the console frame. `data.title` is the page's heading (default: the
 * navigation label of the current section). The view gets `t`, `lang`, `csrf`, `user` and `data`.
 */
export async function consoleView(
  req: FastifyRequest,
  reply: FastifyReply,
  view: string,
  data: Record<string, unknown> = {},
  status = 200,
): Promise<FastifyReply> {
  const user = await sessionUser(req);
  if (!user) throw new AppError('unauthorized', 'no session');
  const t = translator(langOf(req));
  const path = pathOf(req.url);
  // The longest matching prefix is the current section (/console matches only itself).
  const current = [...CONSOLE_NAV]
    .filter((n) => path === n.href || (n.href !== '/console' && path.startsWith(`${n.href}/`)))
    .sort((a, b) => b.href.length - a.href.length)[0];
  const nav = CONSOLE_NAV.map((n) => ({
    href: n.href,
    label: t(`console.nav.${n.key}`),
    current: n === current,
  }));
  return renderWithin(
    req,
    reply,
    'layout',
    view,
    {
      title: current ? t(`console.nav.${current.key}`) : t('console.navLabel'),
      ...data,
      nav,
      user,
      accountName: await accountName(req.server.db, user.accountId),
      here: req.method === 'GET' ? req.url : (current?.href ?? '/console'),
    },
    status,
  );
}
