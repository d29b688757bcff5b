import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { Type } from 'typebox';
import type { Db } from '../db/index.js';
import { refreshStatistics } from '../db/statistics.js';
import { transact } from '../db/transact.js';
import { accountExists, createAccount } from '../modules/account/account.service.js';
import { AppError, validationFailed } from '../shared/errors.js';
import { CountryCode, CurrencyCode } from '../shared/schemas.js';
import { ImportContext } from './context.js';
import { SECTIONS } from './sections.js';

const AccountItem = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    currency: Type.Optional(CurrencyCode),
    country_code: Type.Optional(CountryCode),
    settings: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

/** JSON Schema of the whole import file, built from the registered sections. */
export function importFileSchema() {
  return Type.Object(
    {
      $schema: Type.Optional(Type.String()),
      account: Type.Optional(AccountItem),
      ...Object.fromEntries(
        SECTIONS.map((s) => [s.key, Type.Optional(Type.Array(s.item, { description: s.description }))]),
      ),
    },
    { additionalProperties: false },
  );
}

let validate: ReturnType<Ajv['compile']> | undefined;

export interface ImportResult {
  account_id: number;
  created: Record<string, number>;
}

/**
 * Imports one file into a new account (from its `account` entry) or, with `accountId`, into
 * an existing one. Everything happens in one transaction: a bad file imports nothing.
 */
export async function importData(
  db: Db,
  doc: unknown,
  options: { accountId?: number } = {},
): Promise<ImportResult> {
  if (!validate) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    validate = ajv.compile(importFileSchema());
  }
  if (!validate(doc)) {
    const errors = (validate.errors ?? []).map((e) => ({
      field: (e.instancePath || '/').slice(1).replace(/\//g, '.') || '(root)',
      message: `${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? `: ${e.params.additionalProperty}` : ''}`,
    }));
    throw validationFailed(errors, errors.map((e) => `${e.field}: ${e.message}`).join('\n'));
  }
  const data = doc as Record<string, unknown> & {
    account?: { name: string; currency?: string; country_code?: string; settings?: object };
  };
  const result = await transact(db, async (trx) => {
    let accountId = options.accountId;
    if (accountId === undefined) {
      if (!data.account)
        throw new AppError('validation_failed', 'account: required when no --account is given');
      accountId = await createAccount(trx, data.account);
    } else if (!(await accountExists(trx, accountId))) {
      throw new AppError('not_found', `No account ${accountId}`);
    }
    const ctx = new ImportContext(trx, accountId);
    for (const section of SECTIONS) {
      const items = data[section.key];
      if (Array.isArray(items) && items.length > 0) await section.run(ctx, items);
    }
    return { account_id: accountId, created: ctx.counts };
  });
  if (Object.keys(result.created).length > 0) await refreshStatistics(db);
  return result;
}
