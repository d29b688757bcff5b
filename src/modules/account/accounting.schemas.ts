import { Type } from 'typebox';
import { Nullable } from '../../shared/schemas.js';
import { ACCOUNT_KEYS, ACCOUNTING_BOUNDS } from './accounting.domain.js';

const ACCOUNT_DESCRIPTIONS: Record<(typeof ACCOUNT_KEYS)[number], string> = {
  revenue_19: 'Revenue at 19 % (SKR03 8400, SKR04 4400)',
  revenue_7: 'Revenue at 7 % (SKR03 8300, SKR04 4300)',
  revenue_tax_free: 'Tax-free revenue at 0 % (SKR03 8100, SKR04 4100)',
  revenue_reverse_charge:
    'Services to businesses in other EU states, reverse charge (SKR03 8336, SKR04 4336)',
  revenue_intra_eu: 'Tax-free intra-EU supplies of goods (SKR03 8125, SKR04 4125)',
  revenue_oss:
    'One-Stop-Shop sales to consumers in other EU states at their rate, booked with tax key 240 (SKR03 8320, SKR04 4320)',
  receivables: 'Receivables, the collective account of the debtors (SKR03 1400, SKR04 1200)',
  payables: 'Payables, the collective account of the creditors (SKR03 1600, SKR04 3300)',
  bank: 'Bank account payments are booked on (SKR03 1200, SKR04 1800)',
  interest_income: 'Default interest charged (SKR03 2650, SKR04 7100)',
  fee_income: 'Dunning fees charged (SKR03 2700, SKR04 4830)',
};

const AccountNumber = (description: string) =>
  Type.String({ pattern: '^[0-9]{4,8}$', description: `${description}; digits, the account length` });

const { consultant, client, account_length } = ACCOUNTING_BOUNDS;

const fields = {
  datev_consultant_number: Nullable(
    Type.Integer({
      minimum: consultant.min,
      maximum: consultant.max,
      description: 'DATEV consultant number (Beraternummer) of the tax adviser; the export needs it',
    }),
  ),
  datev_client_number: Nullable(
    Type.Integer({
      minimum: client.min,
      maximum: client.max,
      description: 'DATEV client number (Mandantennummer) of the company; the export needs it',
    }),
  ),
  fiscal_year_start_month: Type.Integer({
    minimum: 1,
    maximum: 12,
    description: 'Month the fiscal year starts with (1: the calendar year)',
  }),
  account_length: Type.Integer({
    minimum: account_length.min,
    maximum: account_length.max,
    description: 'Digits of a general-ledger account (Sachkontenlänge); debtors and creditors have one more',
  }),
  chart: Type.Union([Type.Literal('SKR03'), Type.Literal('SKR04')], {
    description: "DATEV's chart of accounts; sets the default of every account below",
  }),
  vat_method: Type.Union([Type.Literal('accrual'), Type.Literal('cash')], {
    description:
      'VAT by invoice date (`accrual`, Sollversteuerung) or by payment date (`cash`, Istversteuerung)',
  }),
};

export const AccountingSettings = Type.Object(
  {
    ...fields,
    accounts: Type.Object(
      Object.fromEntries(ACCOUNT_KEYS.map((k) => [k, AccountNumber(ACCOUNT_DESCRIPTIONS[k])])) as Record<
        (typeof ACCOUNT_KEYS)[number],
        ReturnType<typeof AccountNumber>
      >,
      {
        additionalProperties: false,
        description:
          'The accounts the DATEV export books on: the chart’s defaults unless chosen. Debtor (clients) and creditor (suppliers) accounts are numbered automatically in DATEV’s ranges (10000–69999 and 70000–99999 at account length 4).',
      },
    ),
  },
  { additionalProperties: false, description: 'Accounting and DATEV export settings' },
);

export const AccountingSettingsPatch = Type.Object(
  {
    datev_consultant_number: Type.Optional(fields.datev_consultant_number),
    datev_client_number: Type.Optional(fields.datev_client_number),
    fiscal_year_start_month: Type.Optional(fields.fiscal_year_start_month),
    account_length: Type.Optional(fields.account_length),
    chart: Type.Optional(fields.chart),
    vat_method: Type.Optional(fields.vat_method),
    accounts: Type.Optional(
      Type.Object(
        Object.fromEntries(
          ACCOUNT_KEYS.map((k) => [k, Type.Optional(Nullable(AccountNumber(ACCOUNT_DESCRIPTIONS[k])))]),
        ),
        { additionalProperties: false, description: '`null` resets an account to the chart’s default' },
      ),
    ),
  },
  { additionalProperties: false, description: 'Accounting settings to change' },
);
