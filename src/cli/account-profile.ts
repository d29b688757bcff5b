import type { Db } from '../db/index.js';
import {
  firstAccountId,
  getAccountProfile,
  updateAccountProfile,
} from '../modules/account/account.service.js';
import { AccountProfilePatch } from '../modules/account/profile.public.js';
import { type Command, type Ctx, positiveInt, UsageError } from './run.js';

const INTEGERS = new Set(['payment_term_days']);
const BOOLEANS = new Set(['service_date_defaults_to_invoice_date']);
const FORMATS = Object.keys(AccountProfilePatch.properties.number_formats.properties).map(
  (k) => `number_formats.${k}`,
);
const KEYS = [
  ...Object.keys(AccountProfilePatch.properties).filter((k) => k !== 'number_formats'),
  ...FORMATS,
];

/** `KEY=VALUE` arguments as a profile patch: `""` clears a field, numbers and booleans typed. */
export function profilePatch(args: string[]): AccountProfilePatch {
  const patch: Record<string, unknown> = {};
  for (const arg of args) {
    const eq = arg.indexOf('=');
    const key = eq > 0 ? arg.slice(0, eq) : arg;
    if (eq < 0 || !KEYS.includes(key))
      throw new UsageError(`not a field of the profile: ${key} (fields: ${KEYS.join(', ')})`);
    const raw = arg.slice(eq + 1);
    let value: unknown = raw === '' ? null : raw;
    if (INTEGERS.has(key) && raw !== '') {
      if (!/^\d{1,6}$/.test(raw)) throw new UsageError(`${key} must be a whole number`);
      value = Number(raw);
    }
    if (BOOLEANS.has(key)) {
      if (raw !== 'true' && raw !== 'false') throw new UsageError(`${key} must be true or false`);
      value = raw === 'true';
    }
    if (key.startsWith('number_formats.')) {
      const formats = (patch.number_formats ?? {}) as Record<string, unknown>;
      formats[key.slice('number_formats.'.length)] = value;
      patch.number_formats = formats;
    } else patch[key] = value;
  }
  return patch as AccountProfilePatch;
}

/** The account the command works on: --account, or the only (first) one. */
async function accountOf(db: Db, ctx: Ctx): Promise<number> {
  const given = positiveInt('--account', ctx.values.account);
  if (given) return given;
  const first = await firstAccountId(db);
  if (first === undefined) throw new UsageError('there is no account yet: import one first');
  return first;
}

function show(ctx: Ctx, profile: Record<string, unknown>): void {
  if (ctx.values.json) {
    ctx.json(profile);
    return;
  }
  const flat: Array<[string, unknown]> = Object.entries(profile).flatMap(([k, v]) =>
    k === 'number_formats' && v && typeof v === 'object'
      ? Object.entries(v).map(([f, x]) => [`number_formats.${f}`, x] as [string, unknown])
      : [[k, k === 'logo' && v ? `${(v as { content_type: string }).content_type}` : v]],
  );
  const width = Math.max(...flat.map(([k]) => k.length)) + 2;
  for (const [k, v] of flat) ctx.out(`${k.padEnd(width)}${v === null ? '—' : String(v)}\n`);
}

export const accountProfileCommands: Command[] = [
  {
    name: 'account-profile show',
    args: '[--account ID] [--json]',
    summary: 'print the company profile every invoice prints (as GET /account/profile)',
    options: { account: { type: 'string' }, json: { type: 'boolean' } },
    async run(ctx) {
      if (ctx.positionals.length) throw new UsageError(`unexpected argument: ${ctx.positionals[0]}`);
      const profile = await ctx.withDb(async ({ db }) => getAccountProfile(db, await accountOf(db, ctx)));
      show(ctx, profile as unknown as Record<string, unknown>);
    },
  },
  {
    name: 'account-profile set',
    args: 'KEY=VALUE… [--account ID] [--json]',
    summary: 'change fields of the company profile (checked as the API checks them; audited as the CLI)',
    help: `KEY=VALUE sets a field, KEY= clears it. Fields: ${KEYS.join(', ')}.
Example: account-profile set vat_id=DE123456789 "street=Hauptstraße 1" number_formats.invoice=RE-{YYYY}-{NNNNN}`,
    options: { account: { type: 'string' }, json: { type: 'boolean' } },
    async run(ctx) {
      if (!ctx.positionals.length) throw new UsageError('account-profile set needs at least one KEY=VALUE');
      const patch = profilePatch(ctx.positionals);
      const profile = await ctx.withDb(async ({ db }) =>
        updateAccountProfile(db, await accountOf(db, ctx), patch, { userId: null, kind: 'cli' }),
      );
      show(ctx, profile as unknown as Record<string, unknown>);
    },
  },
];
