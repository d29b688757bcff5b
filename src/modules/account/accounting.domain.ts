import { type FieldError, validationFailed } from '../../shared/errors.js';

/**
 * The accounting settings of the company profile (`accounts.settings.accounting`): what the
 * DATEV export writes into its header, which accounts it books on, and the VAT method of the
 * VAT return figures. Only what differs from the chart's defaults is stored, so switching the
 * chart moves every account that was not chosen by hand.
 */

export type Chart = 'SKR03' | 'SKR04';
export type VatMethod = 'accrual' | 'cash';

/** The general-ledger accounts the export books on. */
export const ACCOUNT_KEYS = [
  'revenue_19',
  'revenue_7',
  'revenue_tax_free',
  'revenue_reverse_charge',
  'revenue_intra_eu',
  'revenue_oss',
  'receivables',
  'payables',
  'bank',
  'interest_income',
  'fee_income',
] as const;
export type AccountKey = (typeof ACCOUNT_KEYS)[number];

/**
 * DATEV's usual accounts (four digits). Revenue accounts are DATEV's automatic ones (AM):
 * the tax comes with the account, so their rows carry no BU key; the One-Stop-Shop account
 * (Erlöse aus im anderen EU-Land steuerpflichtigen Lieferungen) is not, its rows carry key 240.
 */
export const CHART_DEFAULTS: Record<Chart, Record<AccountKey, string>> = {
  SKR03: {
    revenue_19: '8400',
    revenue_7: '8300',
    revenue_tax_free: '8100',
    revenue_reverse_charge: '8336',
    revenue_intra_eu: '8125',
    revenue_oss: '8320',
    receivables: '1400',
    payables: '1600',
    bank: '1200',
    interest_income: '2650',
    fee_income: '2700',
  },
  SKR04: {
    revenue_19: '4400',
    revenue_7: '4300',
    revenue_tax_free: '4100',
    revenue_reverse_charge: '4336',
    revenue_intra_eu: '4125',
    revenue_oss: '4320',
    receivables: '1200',
    payables: '3300',
    bank: '1800',
    interest_income: '7100',
    fee_income: '4830',
  },
};

export interface AccountingSettings {
  datev_consultant_number: number | null;
  datev_client_number: number | null;
  /** Month (1–12) the fiscal year starts with. */
  fiscal_year_start_month: number;
  /** Digits of a general-ledger account (Sachkontenlänge); personal accounts have one more. */
  account_length: number;
  chart: Chart;
  vat_method: VatMethod;
  accounts: Record<AccountKey, string>;
}

export type AccountingPatch = Partial<
  Omit<AccountingSettings, 'accounts'> & { accounts: Partial<Record<AccountKey, string | null>> }
>;

export const ACCOUNTING_BOUNDS = {
  consultant: { min: 1001, max: 9999999 },
  client: { min: 1, max: 99999 },
  account_length: { min: 4, max: 8 },
} as const;

const intIn = (v: unknown, min: number, max: number): number | null =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : null;

/** A default account at another account length: DATEV pads general-ledger accounts with zeros. */
export const atLength = (account: string, length: number): string =>
  account.length >= length ? account : account.padEnd(length, '0');

/** The settings as stored (unreadable values behave like unset ones). */
export function accountingSettings(raw: unknown): AccountingSettings {
  const s = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const chart: Chart = s.chart === 'SKR04' ? 'SKR04' : 'SKR03';
  const length = intIn(s.account_length, 4, 8) ?? 4;
  const stored = s.accounts && typeof s.accounts === 'object' ? (s.accounts as Record<string, unknown>) : {};
  const accounts = {} as Record<AccountKey, string>;
  for (const key of ACCOUNT_KEYS) {
    const v = stored[key];
    accounts[key] =
      typeof v === 'string' && /^\d+$/.test(v) && v.length === length
        ? v
        : atLength(CHART_DEFAULTS[chart][key], length);
  }
  const { consultant, client } = ACCOUNTING_BOUNDS;
  return {
    datev_consultant_number: intIn(s.datev_consultant_number, consultant.min, consultant.max),
    datev_client_number: intIn(s.datev_client_number, client.min, client.max),
    fiscal_year_start_month: intIn(s.fiscal_year_start_month, 1, 12) ?? 1,
    account_length: length,
    chart,
    vat_method: s.vat_method === 'cash' ? 'cash' : 'accrual',
    accounts,
  };
}

/** What is stored for the settings: the accounts only where they differ from the chart's. */
export function storedAccounting(a: AccountingSettings): Record<string, unknown> {
  const accounts: Record<string, string> = {};
  for (const key of ACCOUNT_KEYS)
    if (a.accounts[key] !== atLength(CHART_DEFAULTS[a.chart][key], a.account_length))
      accounts[key] = a.accounts[key];
  return { ...a, accounts };
}

/**
 * Applies a change: every wrong field is named (422). A changed chart or account length
 * moves the accounts that were not chosen by hand; `null` resets an account to the chart's.
 */
export function applyAccountingPatch(
  current: AccountingSettings,
  patch: AccountingPatch,
): AccountingSettings {
  const errors: FieldError[] = [];
  // The API's schema bounds these already; the console's form reaches here without it.
  const { consultant, client, account_length } = ACCOUNTING_BOUNDS;
  const bounded = (field: string, v: unknown, min: number, max: number, nullable: boolean) => {
    if (v === undefined || (nullable && v === null)) return;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      errors.push({ field: `accounting.${field}`, message: `must be a whole number from ${min} to ${max}` });
  };
  bounded('datev_consultant_number', patch.datev_consultant_number, consultant.min, consultant.max, true);
  bounded('datev_client_number', patch.datev_client_number, client.min, client.max, true);
  bounded('fiscal_year_start_month', patch.fiscal_year_start_month, 1, 12, false);
  bounded('account_length', patch.account_length, account_length.min, account_length.max, false);
  if (patch.chart !== undefined && patch.chart !== 'SKR03' && patch.chart !== 'SKR04')
    errors.push({ field: 'accounting.chart', message: 'must be SKR03 or SKR04' });
  if (patch.vat_method !== undefined && patch.vat_method !== 'accrual' && patch.vat_method !== 'cash')
    errors.push({ field: 'accounting.vat_method', message: 'must be accrual or cash' });
  for (const key of ACCOUNT_KEYS) {
    const v = patch.accounts?.[key];
    if (typeof v === 'string' && !/^\d{4,9}$/.test(v))
      errors.push({ field: `accounting.accounts.${key}`, message: 'must be an account number (digits)' });
  }
  if (errors.length > 0) throw validationFailed(errors);
  const next: AccountingSettings = {
    ...current,
    ...patch,
    accounts: { ...current.accounts },
  } as AccountingSettings;
  const chosen = new Set(
    ACCOUNT_KEYS.filter(
      (k) => current.accounts[k] !== atLength(CHART_DEFAULTS[current.chart][k], current.account_length),
    ),
  );
  for (const key of ACCOUNT_KEYS) {
    const v = patch.accounts?.[key];
    if (v === null) chosen.delete(key);
    else if (v !== undefined) {
      chosen.add(key);
      next.accounts[key] = v;
    }
  }
  for (const key of ACCOUNT_KEYS) {
    if (!chosen.has(key)) next.accounts[key] = atLength(CHART_DEFAULTS[next.chart][key], next.account_length);
    else if (next.accounts[key].length !== next.account_length)
      errors.push({
        field: `accounting.accounts.${key}`,
        message: `must have ${next.account_length} digits (the account length)`,
      });
  }
  if (errors.length > 0) throw validationFailed(errors);
  return next;
}

/** The range of debtor (clients) and creditor (suppliers) accounts for an account length. */
export function personalRange(
  kind: 'debtor' | 'creditor',
  accountLength: number,
): { from: number; to: number } {
  const base = 10 ** accountLength;
  return kind === 'debtor' ? { from: base, to: 7 * base - 1 } : { from: 7 * base, to: 10 * base - 1 };
}
