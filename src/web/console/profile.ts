import { createRequire } from 'node:module';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import countries from 'i18n-iso-countries';
import {
  checkProfilePatch,
  getAccountLogo,
  getAccountProfile,
  removeAccountLogo,
  setAccountLogo,
  updateAccountProfile,
} from '../../modules/account/account.service.js';
import type { AccountProfilePatch } from '../../modules/account/profile.public.js';
import { AppError } from '../../shared/errors.js';
import { type Lang, langOf, translator } from '../i18n.js';
import { checkCsrf } from '../session.js';
import {
  fieldError,
  isAccountingField,
  PROFILE_FIELDS,
  PROFILE_GROUPS,
  profileMessages,
} from './profile.fields.js';
import { consoleView, requireAdmin } from './shell.js';

const require = createRequire(import.meta.url);
for (const lang of ['en', 'de']) countries.registerLocale(require(`i18n-iso-countries/langs/${lang}.json`));
profileMessages();

const PAGE = '/console/company';
const hidden = { schema: { hide: true } };

const countryOptions = new Map<Lang, { code: string; name: string }[]>();
function countryList(lang: Lang) {
  let list = countryOptions.get(lang);
  if (!list) {
    const names = countries.getNames(lang, { select: 'official' });
    list = Object.keys(countries.getAlpha2Codes())
      .map((code) => ({ code, name: names[code] ?? code }))
      .sort((a, b) => a.name.localeCompare(b.name, lang));
    countryOptions.set(lang, list);
  }
  return list;
}

/** A nested value by a dotted field name (`accounting.accounts.bank`). */
const nested = (p: Record<string, unknown>, name: string): unknown =>
  name
    .split('.')
    .reduce<unknown>(
      (o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined),
      p,
    );

/**
 * The accounting fields of the form as the patch's `accounting`: only fields the form sent; an
 * account is sent only when changed (so a new chart moves the rest), empty resets it.
 */
function accountingPatch(
  body: Record<string, unknown>,
  current: Record<string, unknown>,
  errors: Record<string, string>,
) {
  const out: Record<string, unknown> = {};
  const accounts: Record<string, string | null> = {};
  for (const f of PROFILE_FIELDS.filter((x) => isAccountingField(x.name))) {
    const raw = body[f.name];
    if (typeof raw !== 'string') continue;
    const v = raw.trim().slice(0, 20);
    const key = f.name.slice('accounting.'.length);
    if (key.startsWith('accounts.')) {
      if (v === '') accounts[key.slice(9)] = null;
      else if (v !== nested(current, f.name)) accounts[key.slice(9)] = v;
    } else if (f.kind === 'number') {
      if (v === '' && key.startsWith('datev_')) out[key] = null;
      else if (/^\d{1,7}$/.test(v)) out[key] = Number(v);
      else errors[f.name] = 'must be a whole number';
    } else out[key] = v;
  }
  if (Object.keys(accounts).length > 0) out.accounts = accounts;
  return out;
}

/** The form's fields as the patch the service takes: '' clears, numbers and the checkbox parsed. */
function formPatch(
  body: Record<string, unknown>,
  current: Record<string, unknown>,
): {
  patch: AccountProfilePatch;
  errors: Record<string, string>;
} {
  const str = (name: string) => (typeof body[name] === 'string' ? (body[name] as string).slice(0, 5000) : '');
  const patch: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const f of PROFILE_FIELDS) {
    const v = str(f.name);
    if (isAccountingField(f.name)) continue;
    if (f.name === 'name') patch.name = v;
    else if (f.name === 'default_hourly_rate') {
      // Money as people type it: 95, 95.5 or 95,50.
      const t = v.trim();
      if (t === '') patch[f.name] = null;
      else if (/^\d{1,7}([.,]\d{1,2})?$/.test(t)) patch[f.name] = Number(t.replace(',', '.'));
      else errors[f.name] = 'must be an amount of at least 0 with at most two decimals';
    } else if (f.kind === 'number') {
      if (v.trim() === '') patch[f.name] = null;
      else if (/^\d{1,3}$/.test(v.trim())) patch[f.name] = Number(v.trim());
      else errors[f.name] = 'must be a whole number of days from 0 to 365';
    } else if (f.name.startsWith('number_formats.')) {
      patch.number_formats = { ...(patch.number_formats as object), [f.name.slice(15)]: v };
    } else if (f.kind === 'checkbox') patch[f.name] = body[f.name] === 'on';
    else patch[f.name] = v.trim() === '' ? null : v;
  }
  const accounting = accountingPatch(body, current, errors);
  if (Object.keys(accounting).length > 0) patch.accounting = accounting;
  return { patch: patch as AccountProfilePatch, errors };
}

/** The profile as the form's values (number formats flattened to their field names). */
function formValues(p: Record<string, unknown>): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  const formats = (p.number_formats ?? {}) as Record<string, string>;
  for (const f of PROFILE_FIELDS) {
    const v =
      f.name in p
        ? p[f.name]
        : f.name.startsWith('number_formats.')
          ? formats[f.name.slice(15)]
          : nested(p, f.name);
    out[f.name] = f.kind === 'checkbox' ? v === true : v === null || v === undefined ? '' : String(v);
  }
  return out;
}

async function page(
  req: FastifyRequest,
  reply: FastifyReply,
  accountId: number,
  extra: {
    values?: Record<string, string | boolean>;
    errors?: Record<string, string>;
    logoError?: string;
    notice?: string;
  },
  status = 200,
) {
  const lang = langOf(req);
  const t = translator(lang);
  const profile = await getAccountProfile(req.server.db, accountId);
  return consoleView(
    req,
    reply,
    'console-profile',
    {
      title: t('profile.title'),
      groups: PROFILE_GROUPS,
      fields: PROFILE_FIELDS,
      values: extra.values ?? formValues(profile),
      errors: extra.errors ?? {},
      countries: countryList(lang),
      logo: profile.logo,
      logoError: extra.logoError ?? '',
      notice: extra.notice ?? '',
    },
    status,
  );
}

/** The company profile: the details every invoice prints (src/modules/account). */
export async function profilePage(app: FastifyInstance): Promise<void> {
  // The logo form only: files up to 1 MB reach the service, which allows 256 KB and says so.
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: 1024 * 1024, files: 1, fields: 5, parts: 6, fieldSize: 1024 },
  });

  app.get(PAGE, hidden, async (req, reply) => {
    const user = await requireAdmin(req);
    const t = translator(langOf(req));
    const q = req.query as Record<string, unknown>;
    return page(req, reply, user.accountId, { notice: q.saved !== undefined ? t('console.saved') : '' });
  });

  app.post(PAGE, hidden, async (req, reply) => {
    checkCsrf(req);
    const user = await requireAdmin(req);
    const lang = langOf(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const { patch, errors } = formPatch(body, await getAccountProfile(app.db, user.accountId));
    const values = formValues({
      ...Object.fromEntries(PROFILE_FIELDS.map((f) => [f.name, body[f.name] ?? ''])),
      service_date_defaults_to_invoice_date: body.service_date_defaults_to_invoice_date === 'on',
      number_formats: { invoice: body['number_formats.invoice'], credit: body['number_formats.credit'] },
    });
    for (const [field, message] of Object.entries(errors)) errors[field] = fieldError(lang, field, message);
    try {
      if (Object.keys(errors).length > 0) {
        // Checked all the same, so that every wrong field is named at once; nothing is written.
        await checkProfilePatch(app.db, user.accountId, patch);
        throw new AppError('validation_failed');
      }
      await updateAccountProfile(app.db, user.accountId, patch, { userId: user.userId, kind: 'user' });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err;
      for (const e of err.errors ?? []) errors[e.field] ??= fieldError(lang, e.field, e.message);
      return page(req, reply, user.accountId, { values, errors }, 422);
    }
    return reply.redirect(`${PAGE}?saved`, 303);
  });

  app.get(`${PAGE}/logo`, hidden, async (req, reply) => {
    const user = await requireAdmin(req);
    const logo = await getAccountLogo(app.db, user.accountId);
    return reply.type(logo.content_type).header('cache-control', 'no-store').send(logo.data);
  });

  app.post(`${PAGE}/logo`, hidden, async (req, reply) => {
    checkCsrf(req);
    const user = await requireAdmin(req);
    const t = translator(langOf(req));
    const file = (req.body as Record<string, unknown> | undefined)?.file;
    try {
      if (!Buffer.isBuffer(file) || file.length === 0) throw new AppError('validation_failed');
      await setAccountLogo(app.db, user.accountId, file, { userId: user.userId, kind: 'user' });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const key =
        err.code === 'payload_too_large'
          ? 'profile.logo.tooLarge'
          : err.code === 'unsupported_media_type'
            ? 'profile.logo.wrongType'
            : err.code === 'validation_failed'
              ? 'profile.logo.missing'
              : '';
      if (!key) throw err;
      return page(req, reply, user.accountId, { logoError: t(key) }, 422);
    }
    return reply.redirect(`${PAGE}?saved`, 303);
  });

  app.post(`${PAGE}/logo/remove`, hidden, async (req, reply) => {
    checkCsrf(req);
    const user = await requireAdmin(req);
    await removeAccountLogo(app.db, user.accountId, { userId: user.userId, kind: 'user' });
    return reply.redirect(`${PAGE}?saved`, 303);
  });
}
