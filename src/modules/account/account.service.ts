import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import countries from 'i18n-iso-countries';
import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError, type FieldError, validationFailed } from '../../shared/errors.js';
import {
  compactId,
  isValidBic,
  isValidIban,
  isValidSepaCreditorId,
  isValidVatId,
  normalizeIdentifier,
  vatIdCountry,
} from '../../shared/identifiers.js';
import { fromCents, toCents } from '../../shared/money.js';
import { nowIso } from '../../shared/time.js';
import { type ActorKind, recordAudit } from '../audit/audit.service.js';
import * as repo from './account.repository.js';
import { type AccountProfile, type AccountProfilePatch, LIMITS, LOGO_MAX_BYTES } from './account.schemas.js';
import { applyAccountingPatch } from './accounting.domain.js';
import {
  accountProfile,
  NUMBER_KINDS,
  numberFormatProblem,
  PROFILE_TEXT_KEYS,
  profileSettings,
  type AccountProfile as StoredProfile,
} from './profile.public.js';
import { userRole } from './users.read-model.js';

const require = createRequire(import.meta.url);
countries.registerLocale(require('i18n-iso-countries/langs/en.json'));

/** Who changes the profile: the audit log names them. */
export interface ProfileActor {
  userId: number | null;
  kind: ActorKind;
}

export const LOGO_PATH = '/api/v1/account/profile/logo';

function toWire(p: StoredProfile): AccountProfile {
  const { logo, default_hourly_rate, ...rest } = p;
  return {
    ...rest,
    default_hourly_rate: default_hourly_rate === null ? null : fromCents(default_hourly_rate),
    logo: logo ? { ...logo, url: LOGO_PATH } : null,
  };
}

async function stored(db: Db, accountId: number, forUpdate = false) {
  const row = await repo.findAccount(db, accountId, forUpdate);
  if (!row) throw new AppError('not_found', 'Account not found');
  return row;
}

/** What a change makes of the profile, and the audit entry that records it. */
interface ProfileChange {
  next: StoredProfile;
  action: 'account.profile_update' | 'account.logo_set' | 'account.logo_remove';
  detail?: Record<string, unknown>;
}

/**
 * One change of the profile in one transaction, the account row locked: `change` answers the
 * next profile (undefined: nothing changes), which is written (other settings keys kept) and
 * audited. Answers the profile as GET does.
 */
async function changeProfile(
  db: Db,
  accountId: number,
  actor: ProfileActor,
  change: (current: StoredProfile, trx: Db) => Promise<ProfileChange | undefined>,
): Promise<AccountProfile> {
  const profile = await transact(db, async (trx) => {
    const row = await stored(trx, accountId, true);
    const current = accountProfile(row);
    const c = await change(current, trx);
    if (!c) return current;
    await repo.updateAccount(trx, accountId, {
      name: c.next.name,
      country_code: c.next.country_code,
      settings: profileSettings(row.settings, c.next),
    });
    await recordAudit(trx, {
      accountId,
      actorUserId: actor.userId,
      actorKind: actor.kind,
      action: c.action,
      targetType: 'account',
      targetId: accountId,
      ...(c.detail ? { detail: c.detail } : {}),
    });
    return c.next;
  });
  return toWire(profile);
}

/** The account's company profile, as GET /account/profile answers it. */
export async function getAccountProfile(db: Db, accountId: number): Promise<AccountProfile> {
  return toWire(accountProfile(await stored(db, accountId)));
}

/** Whether the user is an active admin of the account. */
export const isAccountAdmin = async (db: Db, accountId: number, userId: number): Promise<boolean> =>
  (await userRole(db, accountId, userId)) === 'admin';

/**
 * The API's rule for the profile (beyond the scope): the token's user must be an admin of the
 * account, as in the console. 403 `forbidden` otherwise.
 */
export async function assertAccountAdmin(db: Db, accountId: number, userId: number): Promise<void> {
  if (!(await isAccountAdmin(db, accountId, userId)))
    throw new AppError(
      'forbidden',
      'Only an administrator of the account may do this; the token acts for a user who is not one',
    );
}

// --- validation -----------------------------------------------------------------------------

const EMAIL = /^[^\s@"<>,;]+@[^\s@"<>,;]+\.[^\s@"<>,;]+$/;
const PHONE = /^\+?[0-9 ()/.-]+$/;
const TAX_NUMBER = /^[0-9A-Za-z /.-]+$/;
const PLACEHOLDER = /\{([^{}]*)\}/g;

type TextKey = (typeof PROFILE_TEXT_KEYS)[number];

/**
 * Checks a change and applies it to the stored profile: every field that is wrong is named
 * (422 `validation_failed` with one entry per field), identifiers are stored normalised
 * (IBAN, BIC and VAT id upper case without blanks). The console's form uses it too.
 */
export function applyProfilePatch(current: StoredProfile, patch: AccountProfilePatch): StoredProfile {
  const errors: FieldError[] = [];
  const bad = (field: string, message: string) => errors.push({ field, message });
  const next: StoredProfile = { ...current, number_formats: { ...current.number_formats } };

  if (patch.name !== undefined) {
    const name = patch.name.trim();
    if (!name) bad('name', 'must not be empty');
    else if (name.length > LIMITS.name) bad('name', `must be at most ${LIMITS.name} characters`);
    else next.name = name;
  }
  if (patch.country_code !== undefined) {
    const code = patch.country_code?.trim().toUpperCase() || null;
    if (code !== null && !countries.isValid(code))
      bad(
        'country_code',
        `"${patch.country_code}" is not an ISO 3166-1 alpha-2 country code (e.g. DE, AT, FR)`,
      );
    else next.country_code = code;
  }
  for (const key of PROFILE_TEXT_KEYS) {
    const raw = patch[key as keyof AccountProfilePatch];
    if (raw === undefined) continue;
    if (raw !== null && typeof raw !== 'string') {
      bad(key, 'must be a string or null');
      continue;
    }
    // Multi-line texts keep their lines; one-line fields lose blanks around them.
    let value: string | null = raw === null ? null : raw.trim() || null;
    const max = LIMITS[key as keyof typeof LIMITS];
    if (value !== null && value.length > max) {
      bad(key, `must be at most ${max} characters`);
      continue;
    }
    if (value !== null) {
      const problem = textProblem(key, value);
      if (problem) {
        bad(key, problem);
        continue;
      }
      if (key === 'iban' || key === 'bic' || key === 'sepa_creditor_identifier')
        value = normalizeIdentifier(value);
      if (key === 'vat_id') value = compactId(value);
    }
    next[key as TextKey] = value;
  }
  if (patch.payment_term_days !== undefined) {
    const d = patch.payment_term_days;
    if (d !== null && (!Number.isInteger(d) || d < 0 || d > 365))
      bad('payment_term_days', 'must be a whole number of days from 0 to 365');
    else next.payment_term_days = d;
  }
  if (patch.default_hourly_rate !== undefined) {
    const rate = patch.default_hourly_rate === null ? null : toCents(patch.default_hourly_rate);
    if (rate === undefined || (rate !== null && rate < 0))
      bad('default_hourly_rate', 'must be an amount of at least 0 with at most two decimals');
    else next.default_hourly_rate = rate;
  }
  if (patch.service_date_defaults_to_invoice_date !== undefined)
    next.service_date_defaults_to_invoice_date = patch.service_date_defaults_to_invoice_date;
  for (const kind of NUMBER_KINDS) {
    const format = patch.number_formats?.[kind];
    if (format === undefined) continue;
    const problem = numberFormatProblem(format.trim());
    if (problem) bad(`number_formats.${kind}`, `"${format}" ${problem}`);
    else next.number_formats[kind] = format.trim();
  }
  if (patch.accounting !== undefined) {
    try {
      next.accounting = applyAccountingPatch(current.accounting, patch.accounting);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      errors.push(...(err.errors ?? []));
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
  return next;
}

function textProblem(key: string, value: string): string | null {
  switch (key) {
    case 'iban':
      return isValidIban(value)
        ? null
        : `"${value}" is not a valid IBAN: the country's length or the check digits do not match`;
    case 'bic':
      return isValidBic(value)
        ? null
        : `"${value}" is not a valid BIC: 8 or 11 letters and digits (bank, country, location, optional branch), e.g. BYLADEM1001`;
    case 'sepa_creditor_identifier':
      return isValidSepaCreditorId(value)
        ? null
        : `"${value}" is not a valid SEPA creditor identifier: country, check digits, business code and national id, e.g. DE98ZZZ09999999999`;
    case 'vat_id': {
      if (isValidVatId(value)) return null;
      const country = vatIdCountry(value);
      return country
        ? `"${value}" does not have the format of a VAT id of ${country}`
        : `"${value}" must start with the country prefix of an EU member state, CH, GB, NO or XI (e.g. DE123456789)`;
    }
    case 'email':
      return EMAIL.test(value) ? null : `"${value}" is not an e-mail address`;
    case 'phone':
      return PHONE.test(value) && (value.match(/\d/g)?.length ?? 0) >= 3
        ? null
        : 'may hold only digits, blanks and + ( ) / . -';
    case 'tax_number':
      return TAX_NUMBER.test(value) && /\d/.test(value)
        ? null
        : 'may hold only letters, digits, blanks and / . -';
    case 'payment_terms_text': {
      const unknown = [...value.matchAll(PLACEHOLDER)]
        .map((m) => m[1])
        .filter((n) => n !== 'due_date' && n !== 'days');
      return unknown.length ? `knows only the placeholders {due_date} and {days}, not {${unknown[0]}}` : null;
    }
    default:
      return null;
  }
}

/** Checks a change without making it (the console reports every wrong field at once). */
export async function checkProfilePatch(
  db: Db,
  accountId: number,
  patch: AccountProfilePatch,
): Promise<void> {
  applyProfilePatch(accountProfile(await stored(db, accountId)), patch);
}

/** The names of the fields whose value differs (the audit's detail; values of bank data left out). */
function changedFields(before: StoredProfile, after: StoredProfile): string[] {
  const out: string[] = [];
  for (const key of Object.keys(after) as (keyof StoredProfile)[]) {
    if (key === 'number_formats') {
      for (const kind of NUMBER_KINDS)
        if (before.number_formats[kind] !== after.number_formats[kind]) out.push(`number_formats.${kind}`);
    } else if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) out.push(key);
  }
  return out;
}

/**
 * Changes the profile (the fields `patch` names) and records it in the audit log, in one
 * transaction. Answers the profile as GET does. Booked invoices keep what they were booked with.
 */
export async function updateAccountProfile(
  db: Db,
  accountId: number,
  patch: AccountProfilePatch,
  actor: ProfileActor,
): Promise<AccountProfile> {
  return changeProfile(db, accountId, actor, async (before) => {
    const after = applyProfilePatch(before, patch);
    const changed = changedFields(before, after);
    return changed.length === 0
      ? undefined
      : { next: after, action: 'account.profile_update', detail: { changed } };
  });
}

// --- logo -----------------------------------------------------------------------------------

/** The image type by its first bytes: PNG or JPEG only, whatever the upload declared. */
export function logoType(data: Buffer): 'image/png' | 'image/jpeg' | null {
  if (
    data.length >= 8 &&
    data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  )
    return 'image/png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  return null;
}

/** Sets the account's logo (PNG or JPEG, at most LOGO_MAX_BYTES), audited. */
export async function setAccountLogo(
  db: Db,
  accountId: number,
  data: Buffer,
  actor: ProfileActor,
): Promise<AccountProfile> {
  if (data.length === 0)
    throw validationFailed([{ field: 'file', message: 'is empty' }], 'The logo is empty');
  if (data.length > LOGO_MAX_BYTES)
    throw new AppError('payload_too_large', `The logo is larger than ${LOGO_MAX_BYTES / 1024} KB`);
  const type = logoType(data);
  if (!type) throw new AppError('unsupported_media_type', 'The logo must be a PNG or JPEG image');
  const sha256 = createHash('sha256').update(data).digest('hex');
  return changeProfile(db, accountId, actor, async (current, trx) => {
    await repo.insertLogo(trx, {
      account_id: accountId,
      sha256,
      content_type: type,
      byte_size: data.length,
      data,
    });
    return {
      next: {
        ...current,
        logo: { sha256, content_type: type, byte_size: data.length, updated_at: nowIso() },
      },
      action: 'account.logo_set',
      detail: { content_type: type, byte_size: data.length, sha256 },
    };
  });
}

/** Removes the logo from the profile (invoices booked with it keep it), audited. */
export async function removeAccountLogo(
  db: Db,
  accountId: number,
  actor: ProfileActor,
): Promise<AccountProfile> {
  return changeProfile(db, accountId, actor, async (current) =>
    current.logo ? { next: { ...current, logo: null }, action: 'account.logo_remove' } : undefined,
  );
}

/** The bytes of the account's current logo (or of the one with `sha256`); 404 without one. */
export async function getAccountLogo(db: Db, accountId: number, sha256?: string) {
  const hash = sha256 ?? accountProfile(await stored(db, accountId)).logo?.sha256;
  const logo = hash ? await repo.findLogo(db, accountId, hash) : undefined;
  if (!logo) throw new AppError('not_found', 'The account has no logo');
  return { content_type: logo.content_type, data: Buffer.from(logo.data), sha256: logo.sha256 };
}

// --- accounts (the import creates them; the CLI picks the first) -------------------------------

/** A new account (the import's `account` entry); answers its id. */
export async function createAccount(
  db: Db,
  input: { name: string; currency?: string; country_code?: string; settings?: object },
): Promise<number> {
  return repo.insertAccount(db, {
    name: input.name,
    currency: input.currency ?? 'EUR',
    country_code: input.country_code ?? null,
    settings: JSON.stringify(input.settings ?? {}),
  });
}

export const accountExists = async (db: Db, accountId: number): Promise<boolean> =>
  (await repo.findAccount(db, accountId)) !== undefined;

/** The first account's id (the one of a single-account installation); undefined when there is none. */
export const firstAccountId = (db: Db): Promise<number | undefined> => repo.firstAccountId(db);
