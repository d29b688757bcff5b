import { readFileSync } from 'node:fs';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  acceptInvite,
  HashingBusyError,
  openInvite,
  PASSWORD_MAX,
  PASSWORD_MIN,
  passwordProblem,
} from '../modules/users/users.public.js';
import { toAppError } from '../shared/db-errors.js';
import { AppError } from '../shared/errors.js';
import { consolePages } from './console/index.js';
import { useCookieCodec } from './cookies.js';
import { langOf, translator } from './i18n.js';
import { render } from './render.js';
import { checkCsrf, endSession, requireSession, sessionUser, startSession } from './session.js';
import { accountName } from './sessions.repository.js';
import { authenticate, normalEmail } from './signin.service.js';
import { clearFailures, recordFailure, throttledFor } from './throttle.js';

const CSS = readFileSync(new URL('./assets/web.css', import.meta.url));
const HOME = '/me';
/** Where a sign-in without a page to return to lands: admins stay there, members go on to HOME. */
const CONSOLE = '/console';

/**
 * Only a path of this site: `/x?y`. Not `//evil.example` or `/\evil.example` (browsers read
 * both as another host), nothing with a scheme, nothing absurdly long.
 */
export function safeReturnTo(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2000 || !value.startsWith('/')) return undefined;
  if (value.startsWith('//') || value.includes('\\')) return undefined;
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) < 0x20) return undefined;
  const url = new URL(value, 'http://same.invalid');
  return url.origin === 'http://same.invalid' ? `${url.pathname}${url.search}${url.hash}` : undefined;
}

/** A form field as a bounded string ('' when missing or not a string). */
function field(req: FastifyRequest, name: string, max = PASSWORD_MAX): string {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.slice(0, max) : '';
}

/**
 * The cookie codec for every page (this plugin's and those of other modules, e.g. OAuth
 * consent), then the sign-in pages.
 */
export async function webPlugin(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    // No routes in this scope: the plugin's onSend hook and decorations reach none.
    await scope.register(cookie, { hook: false });
    useCookieCodec(scope.parseCookie, scope.serializeCookie);
  });
  await app.register(signinPages);
  await app.register(consolePages);
}

/**
 * The pages with which users sign in, sign out and accept invitations (issue 12), outside
 * /api/v1 and outside the OpenAPI document (they are for browsers, not integrations). Forms
 * are url-encoded; every POST checks the CSRF token and the origin.
 */
async function signinPages(app: FastifyInstance): Promise<void> {
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  const hidden = { schema: { hide: true } };

  // Errors on these pages are pages too, not problem+json.
  app.setErrorHandler((error: FastifyError, req, reply) => {
    const err =
      error instanceof HashingBusyError
        ? new AppError('unavailable', error.message, { headers: { 'retry-after': '5' } })
        : toAppError(error);
    const t = translator(langOf(req));
    if (err.status >= 500) req.log.error({ err: error }, 'page failed');
    else req.log.info({ code: err.code, detail: err.message }, 'page refused');
    const message =
      err.code === 'forbidden'
        ? t('error.csrf')
        : err.code === 'unavailable'
          ? t('error.busy')
          : err.status === 404
            ? t('error.notFound')
            : err.status >= 500
              ? t('error.internal')
              : t('error.badRequest');
    if (err.headers?.['retry-after']) reply.header('retry-after', err.headers['retry-after']);
    return render(req, reply, 'message', { heading: t('error.title'), message }, err.status);
  });

  app.get('/assets/web.css', hidden, async (_req, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(CSS),
  );

  const signinPage = (
    req: FastifyRequest,
    reply: FastifyReply,
    data: Record<string, unknown>,
    status = 200,
  ) => render(req, reply, 'signin', { email: '', returnTo: '', notice: '', error: '', ...data }, status);

  app.get('/signin', hidden, async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const returnTo = safeReturnTo(q.return_to) ?? '';
    if (await sessionUser(req)) return reply.redirect(returnTo || HOME, 303);
    const t = translator(langOf(req));
    const notice =
      q.signed_out !== undefined
        ? t('signin.signedOut')
        : q.password_set !== undefined
          ? t('signin.passwordSet')
          : '';
    return signinPage(req, reply, { returnTo, notice });
  });

  app.post('/signin', hidden, async (req, reply) => {
    checkCsrf(req);
    const t = translator(langOf(req));
    const email = normalEmail(field(req, 'email', 320));
    const password = field(req, 'password');
    const returnTo = safeReturnTo(field(req, 'return_to', 2000)) ?? '';
    const ip = req.ip ?? 'unknown';
    const wait = await throttledFor(app.db, email, ip);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      const error = t('signin.throttled', { minutes: Math.max(1, Math.ceil(wait / 60)) });
      return signinPage(req, reply, { email, returnTo, error }, 429);
    }
    const user = await authenticate(app.db, email, password);
    if (!user) {
      await recordFailure(app.db, email, ip);
      return signinPage(req, reply, { email, returnTo, error: t('signin.failed') }, 401);
    }
    await clearFailures(app.db, email);
    await startSession(req, reply, user);
    // The console's dashboard sends a member on to HOME.
    return reply.redirect(returnTo || CONSOLE, 303);
  });

  app.post('/signout', hidden, async (req, reply) => {
    checkCsrf(req);
    await endSession(req, reply);
    return reply.redirect('/signin?signed_out', 303);
  });

  app.get(HOME, hidden, async (req, reply) => {
    const user = await requireSession(req, reply);
    if (!user) return reply;
    return render(req, reply, 'me', {
      user,
      accountName: await accountName(app.db, user.accountId),
      consoleHref: user.role === 'admin' ? CONSOLE : '',
    });
  });

  const gone = (req: FastifyRequest, reply: FastifyReply) => {
    const t = translator(langOf(req));
    return render(req, reply, 'message', { heading: t('invite.title'), message: t('invite.gone') }, 410);
  };
  const invitePage = (
    req: FastifyRequest,
    reply: FastifyReply,
    token: string,
    email: string,
    error = '',
    status = 200,
  ) =>
    render(
      req,
      reply,
      'invite',
      { email, error, min: PASSWORD_MIN, action: `/invite/${encodeURIComponent(token)}` },
      status,
    );

  app.get<{ Params: { token: string } }>('/invite/:token', hidden, async (req, reply) => {
    const invite = await openInvite(app.db, req.params.token);
    if (!invite) return gone(req, reply);
    // The link holds a secret: no Referer with it to anything the page loads.
    reply.header('referrer-policy', 'no-referrer');
    return invitePage(req, reply, req.params.token, invite.email);
  });

  app.post<{ Params: { token: string } }>('/invite/:token', hidden, async (req, reply) => {
    checkCsrf(req);
    const t = translator(langOf(req));
    const token = req.params.token;
    const invite = await openInvite(app.db, token);
    if (!invite) return gone(req, reply);
    const password = field(req, 'password', PASSWORD_MAX + 1);
    const problem = passwordProblem(password);
    const error =
      problem === 'too_short'
        ? t('invite.tooShort', { min: PASSWORD_MIN })
        : problem === 'too_long'
          ? t('invite.tooLong')
          : password !== field(req, 'password_confirm', PASSWORD_MAX + 1)
            ? t('invite.mismatch')
            : '';
    if (error) return invitePage(req, reply, token, invite.email, error, 422);
    const user = await acceptInvite(app.db, token, password);
    if (!user) return gone(req, reply);
    await startSession(req, reply, user);
    return reply.redirect(HOME, 303);
  });
}
