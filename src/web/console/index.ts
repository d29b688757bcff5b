import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance } from 'fastify';
import { toAppError } from '../../plugins/errors.js';
import { langOf, translator } from '../i18n.js';
import { render } from '../render.js';
import { checkCsrf, sessionUser, signinUrl } from '../session.js';
import { accountingPage } from './accounting.js';
import { auditPage } from './audit.js';
import { bankPage } from './bank.js';
import { dashboardPage } from './dashboard.js';
import { integrationsPages } from './integrations.js';
import { mailTemplatesPage } from './mail-templates.js';
import { profilePage } from './profile.js';
import { consoleView } from './shell.js';
import { teamPages } from './team.js';
import { webhooksPages } from './webhooks.js';

/** Where a console page that failed sends the visitor back to. */
const BACK = { href: '/console', key: 'console.backToConsole' };

/**
 * The account console (issue 13): server-rendered pages under /console for the users of an
 * account, on the sign-in's sessions. One plugin per page file, registered below (one line
 * each). Every route in this scope needs a session (visitors without one go to sign in and
 * come back); pages check the role themselves with requireAdmin(); every POST checks CSRF.
 */
export async function consolePages(app: FastifyInstance): Promise<void> {
  // Forms are url-encoded (the logo upload registers multipart in its own scope).
  await app.register(formbody, { bodyLimit: 64 * 1024 });

  app.addHook('onRequest', async (req, reply) => {
    if (await sessionUser(req)) return;
    reply.header('cache-control', 'no-store');
    return reply.redirect(signinUrl(req.method === 'GET' ? req.url : '/console'), 303);
  });

  // Errors are pages in the console frame: a member on an admin page, an expired form, …
  app.setErrorHandler(async (error: FastifyError, req, reply) => {
    const err = toAppError(error);
    const t = translator(langOf(req));
    if (err.status >= 500) req.log.error({ err: error }, 'console page failed');
    else req.log.info({ code: err.code, detail: err.message }, 'console page refused');
    if (err.code === 'unauthorized') return reply.redirect(signinUrl('/console'), 303);
    const csrf = err.code === 'forbidden' && err.message === 'csrf';
    const admin = err.code === 'forbidden' && !csrf;
    const message = csrf
      ? t('error.csrf')
      : admin
        ? t('console.forbidden')
        : err.status === 404
          ? t('error.notFound')
          : err.status >= 500
            ? t('error.internal')
            : t('error.badRequest');
    const back = admin ? { href: '/me', key: 'console.backToMe' } : BACK;
    const data = {
      title: admin ? t('console.forbidden.title') : t('error.title'),
      message,
      backHref: back.href,
      backLabel: t(back.key),
    };
    if (!(await sessionUser(req)))
      return render(req, reply, 'message', { heading: data.title, message }, err.status);
    return consoleView(req, reply, 'console-message', data, err.status);
  });

  // The language switch: a cookie for a year, then back to the page it was used on.
  app.post('/console/lang', { schema: { hide: true } }, async (req, reply) => {
    checkCsrf(req);
    const body = req.body as Record<string, unknown>;
    const lang = body.lang === 'de' ? 'de' : 'en';
    const back =
      // Only a console path, without control characters or backslashes (no header games).
      typeof body.return_to === 'string' &&
      body.return_to.length <= 2000 &&
      /^\/console(?:[/?][!-[\]-~]*)?$/.test(body.return_to) // printable ASCII, no backslash or blank
        ? body.return_to
        : '/console';
    reply.header(
      'set-cookie',
      `lang=${lang}; Path=/; Max-Age=31536000; SameSite=Lax${req.server.config.publicUrl.startsWith('https:') ? '; Secure' : ''}`,
    );
    return reply.redirect(back, 303);
  });

  // One line per page file.
  await app.register(dashboardPage);
  await app.register(auditPage);
  await app.register(accountingPage);
  await app.register(profilePage);
  await app.register(mailTemplatesPage);
  await app.register(teamPages);
  await app.register(integrationsPages);
  await app.register(webhooksPages);
  await app.register(bankPage);
}
