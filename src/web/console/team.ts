import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  changeOwnPassword,
  inviteMember,
  listTeam,
  reinviteMember,
  setMemberActive,
  setMemberRole,
} from '../../modules/users/team.service.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../modules/users/users.public.js';
import { setUserRates, teamRates } from '../../modules/users/users.service.js';
import { AppError } from '../../shared/errors.js';
import { IdParams } from '../../shared/schemas.js';
import { langOf, translator } from '../i18n.js';
import { checkCsrf, sessionUser, startSession } from '../session.js';
import { clearFailures, recordFailure, throttledFor } from '../throttle.js';
import {
  ActiveForm,
  adminChange,
  adminForm,
  CsrfField,
  consoleView,
  doneNotice,
  type PageAgain,
  refusedOn,
  requireAdmin,
  when,
} from './shell.js';
import './team.messages.js';

const Role = Type.Union([Type.Literal('admin'), Type.Literal('member')]);
const InviteForm = Type.Object({
  _csrf: CsrfField,
  email: Type.String({ maxLength: 320 }),
  first_name: Type.String({ maxLength: 200 }),
  last_name: Type.String({ maxLength: 200 }),
  role: Role,
});
const RoleForm = Type.Object({ _csrf: CsrfField, role: Role });
const Amount = Type.String({ maxLength: 20 });
const RatesForm = Type.Object({ _csrf: CsrfField, hourly_rate: Amount, cost_rate: Amount });

/** Money as people type it (95, 95.5, 95,50; empty: none), or undefined when it is no amount. */
function amountOf(text: string): number | null | undefined {
  const t = text.trim();
  if (t === '') return null;
  return /^\d{1,7}([.,]\d{1,2})?$/.test(t) ? Number(t.replace(',', '.')) : undefined;
}

/** The services take the caller's authorisation; the console acts as the signed-in admin. */
const actingAs = (user: { accountId: number; userId: number }) => ({
  accountId: user.accountId,
  userId: user.userId,
  integrationId: 0,
  tokenId: 0,
  scopes: new Set<string>(['user:write']),
});
// One more than the maximum, so that "too long" is told apart from a cut-off password.
const Password = Type.String({ maxLength: PASSWORD_MAX + 1 });
const PasswordForm = Type.Object({
  _csrf: CsrfField,
  // The form's hidden e-mail, for password managers; not used.
  username: Type.Optional(Type.String({ maxLength: 320 })),
  current_password: Password,
  password: Password,
  password_confirm: Password,
});
const ListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
  done: Type.Optional(
    Type.Union([
      Type.Literal('deactivated'),
      Type.Literal('reactivated'),
      Type.Literal('role'),
      Type.Literal('rates'),
    ]),
  ),
});

type InviteValues = { email: string; first_name: string; last_name: string; role: string };
const EMPTY_INVITE: InviteValues = { email: '', first_name: '', last_name: '', role: 'member' };

/**
 * Users (issue 13): the account's users, inviting one (the one-time link is shown once),
 * deactivating and reactivating, changing the role, all for admins; and for every signed-in
 * user, changing their own password.
 */
export async function teamPages(app: FastifyInstance): Promise<void> {
  const hide = true;

  const listPage: PageAgain = async (req, reply, extra = {}, status = 200) => {
    const user = await requireAdmin(req);
    const page = (req.query as { page?: number }).page ?? 1;
    const { members, hasMore } = await listTeam(app.db, user.accountId, page);
    const rates = await teamRates(
      app.db,
      user.accountId,
      members.map((m) => m.id),
    );
    const shown = (n: number | null | undefined) => (n == null ? '' : n.toFixed(2));
    const withRates = members.map((m) => ({
      ...m,
      hourly_rate: shown(rates.get(m.id)?.hourly_rate),
      cost_rate: shown(rates.get(m.id)?.cost_rate),
    }));
    return consoleView(
      req,
      reply,
      'console-team',
      {
        members: withRates,
        me: user.userId,
        moreHref: hasMore ? `/console/users?page=${page + 1}` : '',
        notice: '',
        error: '',
        invite: EMPTY_INVITE,
        inviteErrors: {},
        invitation: null,
        ...extra,
      },
      status,
    );
  };

  app.get('/console/users', { schema: { hide, querystring: ListQuery } }, async (req, reply) => {
    return listPage(req, reply, { notice: doneNotice(req, 'team') });
  });

  app.post('/console/users/invite', { schema: { hide, body: InviteForm } }, async (req, reply) => {
    checkCsrf(req);
    const user = await requireAdmin(req);
    const t = translator(langOf(req));
    const body = req.body as InviteValues & { role: 'admin' | 'member' };
    const values = {
      email: body.email,
      first_name: body.first_name,
      last_name: body.last_name,
      role: body.role,
    };
    try {
      const invitation = await inviteMember(
        app.db,
        user,
        { email: body.email, firstName: body.first_name, lastName: body.last_name, role: body.role },
        app.config.publicUrl,
      );
      // The link is a password in all but name: no Referer with this page's URL, no caching.
      reply.header('referrer-policy', 'no-referrer');
      return listPage(req, reply, {
        invitation: { ...invitation, expires: when(invitation.expires_at) },
      });
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'validation_failed' && err.code !== 'unprocessable'))
        throw err;
      const field = err.errors?.[0]?.field;
      const message = err.errors?.[0]?.message ?? '';
      const inviteErrors: Record<string, string> = {};
      if (field === 'email')
        inviteErrors.email = t(/at most/.test(message) ? 'team.invite.tooLong' : 'team.invite.badEmail');
      else if (field === 'first_name' || field === 'last_name')
        inviteErrors[field] = t(/at most/.test(message) ? 'team.invite.tooLong' : 'team.invite.required');
      else inviteErrors.email = t('team.invite.deactivated');
      return listPage(req, reply, { invite: values, inviteErrors, error: t('console.fixErrors') }, 422);
    }
  });

  app.post(
    '/console/users/:id/invite',
    { schema: { hide, params: IdParams, body: Type.Object({ _csrf: CsrfField }) } },
    async (req, reply) => {
      checkCsrf(req);
      const user = await requireAdmin(req);
      const t = translator(langOf(req));
      try {
        const invitation = await reinviteMember(
          app.db,
          user,
          (req.params as IdParams).id,
          app.config.publicUrl,
        );
        reply.header('referrer-policy', 'no-referrer');
        return listPage(req, reply, { invitation: { ...invitation, expires: when(invitation.expires_at) } });
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'unprocessable') throw err;
        return listPage(req, reply, { error: t('team.invite.deactivated') }, 409);
      }
    },
  );

  /** A refused change (oneself, the last admin): the list again, saying why. */
  const refused = refusedOn(listPage, (t, reason) => t(`team.refused.${String(reason ?? 'self')}`));

  app.post(
    '/console/users/:id/active',
    { schema: { hide, params: IdParams, body: ActiveForm } },
    adminChange<IdParams, { active: string }>(
      (user, { id }, { active }) => setMemberActive(app.db, user, id, active === '1'),
      (_, { active }) => `/console/users?done=${active === '1' ? 'reactivated' : 'deactivated'}`,
      refused,
    ),
  );

  app.post(
    '/console/users/:id/role',
    { schema: { hide, params: IdParams, body: RoleForm } },
    adminChange<IdParams, { role: 'admin' | 'member' }>(
      (user, { id }, { role }) => setMemberRole(app.db, user, id, role),
      () => '/console/users?done=role',
      refused,
    ),
  );

  // Each user's sale rate (the default of the projects they work on) and internal cost.
  app.post(
    '/console/users/:id/rates',
    { schema: { hide, params: IdParams, body: RatesForm } },
    adminForm(async (user, req, reply) => {
      const { id } = req.params as IdParams;
      const form = req.body as { hourly_rate: string; cost_rate: string };
      const hourly = amountOf(form.hourly_rate);
      const cost = amountOf(form.cost_rate);
      if (hourly === undefined || cost === undefined) {
        const t = translator(langOf(req));
        return listPage(req, reply, { error: t('team.rates.invalid') }, 422);
      }
      await setUserRates(app.db, actingAs(user), id, { hourly_rate: hourly, cost_rate: cost });
      return reply.redirect('/console/users?done=rates', 303);
    }),
  );

  // Every signed-in user, not only admins: their own password.
  const passwordPage = (
    req: FastifyRequest,
    reply: FastifyReply,
    data: Record<string, unknown>,
    status = 200,
  ) => {
    const t = translator(langOf(req));
    return consoleView(
      req,
      reply,
      'console-team-password',
      { title: t('password.title'), min: PASSWORD_MIN, notice: '', error: '', ...data },
      status,
    );
  };

  app.get(
    '/console/password',
    { schema: { hide, querystring: Type.Object({ changed: Type.Optional(Type.String({ maxLength: 0 })) }) } },
    async (req, reply) => {
      const t = translator(langOf(req));
      const changed = (req.query as { changed?: string }).changed !== undefined;
      return passwordPage(req, reply, { notice: changed ? t('password.changed') : '' });
    },
  );

  app.post('/console/password', { schema: { hide, body: PasswordForm } }, async (req, reply) => {
    checkCsrf(req);
    const user = await sessionUser(req);
    if (!user) throw new AppError('unauthorized', 'no session');
    const t = translator(langOf(req));
    const body = req.body as { current_password: string; password: string; password_confirm: string };
    // Guessing the current password from a hijacked session is throttled like sign-in.
    const ip = req.ip ?? 'unknown';
    const wait = await throttledFor(app.db, user.email, ip);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      const error = t('signin.throttled', { minutes: Math.max(1, Math.ceil(wait / 60)) });
      return passwordPage(req, reply, { error }, 429);
    }
    const problem = await changeOwnPassword(app.db, user, {
      current: body.current_password,
      next: body.password,
      confirm: body.password_confirm,
    });
    if (problem) {
      if (problem === 'wrong_current') await recordFailure(app.db, user.email, ip);
      return passwordPage(
        req,
        reply,
        { error: t(`password.${problem}`, { min: PASSWORD_MIN }), problem },
        422,
      );
    }
    await clearFailures(app.db, user.email);
    // Every session of the user ended with the change; this browser goes on in a new one.
    await startSession(req, reply, user);
    return reply.redirect('/console/password?changed', 303);
  });
}
