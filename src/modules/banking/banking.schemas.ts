import { type Static, Type } from 'typebox';
import { DateString, Id, Money, Nullable, PagingQuery, Timestamp } from '../../shared/schemas.js';
import { CSV_DATE_FORMATS } from './csv.domain.js';

export const STATEMENT_FORMATS = ['camt.053', 'camt.052', 'camt.054', 'mt940', 'mt942', 'csv'] as const;
export const TRANSACTION_STATUSES = ['unmatched', 'matched', 'ignored'] as const;
export const MATCH_REASONS = [
  'reference',
  'number_in_text',
  'amount_equal',
  'iban_known',
  'sum_of_invoices',
] as const;

/** A signed amount of a bank line or balance: money in positive. */
const Signed = { ...Money, description: 'Signed amount, at most two decimals: money in is positive' };

export const BankStatement = Type.Object(
  {
    id: Id,
    payment_account_id: Id,
    format: Type.Enum(STATEMENT_FORMATS, { description: 'Recognised from the file’s content' }),
    statement_ref: Nullable(Type.String({ description: 'The statement’s id as the bank wrote it' })),
    file_name: Nullable(Type.String()),
    currency: Nullable(Type.String()),
    period_start: Nullable(DateString),
    period_end: Nullable(DateString),
    opening_balance: Nullable(Signed),
    closing_balance: Nullable(Signed),
    entries_new: Type.Integer({ description: 'Entries stored by this import' }),
    entries_known: Type.Integer({
      description: 'Entries already stored by an earlier import (the same file, or an overlapping one)',
    }),
    entries_skipped: Type.Integer({ description: 'Entries not booked yet (pending), not stored' }),
    matched: Type.Integer({ description: 'New entries matched to invoices automatically' }),
    warnings: Type.Array(Type.String(), {
      description:
        '`balances_do_not_add_up`: opening balance plus the entries is not the closing balance (stored all the same); `currency_differs`: the statement’s currency is not the payment account’s',
    }),
    created_at: Timestamp,
  },
  { $id: 'BankStatement' },
);
export type BankStatement = Static<typeof BankStatement>;

const Match = Type.Object({
  invoice_id: Id,
  payment_id: Id,
  amount: Money,
  origin: Type.Enum(['auto', 'manual'] as const),
  invoice_kind: Type.Enum(['outgoing', 'incoming'] as const, {
    description:
      '`outgoing`: money received for an outgoing invoice; `incoming`: money paid out for an incoming invoice (by one of our SEPA credit transfers, confirmed by its end-to-end id, or matched like money in)',
  }),
});

const Suggestion = Type.Object({
  invoice_id: Id,
  invoice_kind: Type.Enum(['outgoing', 'incoming'] as const, {
    description: '`outgoing` for money in, `incoming` (an incoming invoice) for money out',
  }),
  invoice_number: Type.String(),
  amount: { ...Money, description: 'What the line would settle on it' },
  score: Type.Integer(),
  reasons: Type.Array(Type.Enum(MATCH_REASONS)),
});

export const BankTransaction = Type.Object(
  {
    id: Id,
    payment_account_id: Id,
    statement_id: Id,
    booking_date: DateString,
    value_date: Nullable(DateString),
    amount: Signed,
    currency: Type.String(),
    counterparty_name: Nullable(Type.String()),
    counterparty_iban: Nullable(Type.String()),
    counterparty_bic: Nullable(Type.String()),
    remittance: Nullable(
      Type.String({ description: 'Remittance information (purpose) as the bank gave it' }),
    ),
    creditor_reference: Nullable(
      Type.String({ description: 'Structured creditor reference (ISO 11649 RF…)' }),
    ),
    end_to_end_id: Nullable(Type.String()),
    mandate_id: Nullable(Type.String()),
    bank_reference: Nullable(Type.String()),
    booking_text: Nullable(Type.String()),
    return_reason: Nullable(
      Type.String({
        description:
          'A return or reversal (an R-transaction: a direct debit or credit transfer coming back): the bank’s reason code (ISO 20022, e.g. AC04 account closed, AM04 insufficient funds, MD06 refund claimed by the debtor, MS02 refused by the debtor, MS03 no reason given), or `RVSL` for a reversal without a code. Null on every other line',
      }),
    ),
    status: Type.Enum(TRANSACTION_STATUSES),
    matches: Type.Array(Match, { description: 'The payments this line recorded on invoices' }),
    suggestions: Type.Array(Suggestion, {
      description:
        'Unmatched lines: invoices they may settle (outgoing for money in, incoming for money out), best first, with the reasons (at most 5)',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'BankTransaction' },
);
export type BankTransaction = Static<typeof BankTransaction>;

export const BankStatementListQuery = Type.Object(
  { ...PagingQuery, payment_account_id: Type.Optional(Id) },
  { additionalProperties: false },
);
export type BankStatementListQuery = Static<typeof BankStatementListQuery>;

export const BankTransactionListQuery = Type.Object(
  {
    ...PagingQuery,
    payment_account_id: Type.Optional(Id),
    statement_id: Type.Optional(Id),
    status: Type.Optional(Type.Enum(TRANSACTION_STATUSES)),
    date_from: Type.Optional({ ...DateString, description: 'Booking date on or after' }),
    date_to: Type.Optional({ ...DateString, description: 'Booking date on or before' }),
    amount_min: Type.Optional({
      ...Signed,
      minimum: -1e13,
      maximum: 1e13,
      description: 'Signed amount at least',
    }),
    amount_max: Type.Optional({
      ...Signed,
      minimum: -1e13,
      maximum: 1e13,
      description: 'Signed amount at most',
    }),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Text in the remittance, counterparty name or IBAN, or end-to-end id',
      }),
    ),
  },
  { additionalProperties: false },
);
export type BankTransactionListQuery = Static<typeof BankTransactionListQuery>;

export const MatchBody = Type.Object(
  {
    allocations: Type.Array(
      Type.Object(
        {
          invoice_id: Id,
          amount: { ...Money, exclusiveMinimum: 0, maximum: 1e11 },
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 50 },
    ),
  },
  { additionalProperties: false },
);
export type MatchBody = Static<typeof MatchBody>;

export const EmptyBody = Type.Object({}, { additionalProperties: false });

const Column = Type.Integer({ minimum: 1, maximum: 200, description: 'Column number, 1 for the first' });
const CsvColumns = Type.Object(
  {
    booking_date: Column,
    value_date: Type.Optional(Column),
    amount: Type.Optional({ ...Column, description: 'Signed amount (or `credit` and `debit`)' }),
    credit: Type.Optional({ ...Column, description: 'Money in, with `debit`' }),
    debit: Type.Optional({
      ...Column,
      description: 'Money out (as a positive or negative number), with `credit`',
    }),
    currency: Type.Optional({ ...Column, description: 'Default: the payment account’s currency' }),
    counterparty_name: Type.Optional(Column),
    counterparty_iban: Type.Optional(Column),
    counterparty_bic: Type.Optional(Column),
    remittance: Type.Optional(
      Type.Array(Column, { minItems: 1, maxItems: 5, description: 'Purpose columns, joined with a space' }),
    ),
    bank_reference: Type.Optional({ ...Column, description: 'The bank’s reference of a line: its identity' }),
    end_to_end_reference: Type.Optional(Column),
    mandate_reference: Type.Optional(Column),
    creditor_reference: Type.Optional(Column),
  },
  { additionalProperties: false },
);

const profileFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  delimiter: Type.Enum([',', ';', '\t', '|'] as const, { description: 'Field separator' }),
  decimal_separator: Type.Enum([',', '.'] as const),
  date_format: Type.Enum(CSV_DATE_FORMATS),
  encoding: Type.Enum(['utf-8', 'iso-8859-1'] as const),
  header_rows: Type.Integer({ minimum: 0, maximum: 50, description: 'Rows before the first line' }),
  columns: CsvColumns,
};

export const BankCsvProfile = Type.Object(
  { id: Id, ...profileFields, created_at: Timestamp, updated_at: Timestamp },
  { $id: 'BankCsvProfile' },
);
export type BankCsvProfile = Static<typeof BankCsvProfile>;

export const BankCsvProfileCreate = Type.Object(
  {
    name: profileFields.name,
    delimiter: Type.Optional({ ...profileFields.delimiter, description: 'Default `;`' }),
    decimal_separator: Type.Optional({ ...profileFields.decimal_separator, description: 'Default `,`' }),
    date_format: Type.Optional({ ...profileFields.date_format, description: 'Default `DD.MM.YYYY`' }),
    encoding: Type.Optional({ ...profileFields.encoding, description: 'Default `utf-8`' }),
    header_rows: Type.Optional({ ...profileFields.header_rows, description: 'Default 1' }),
    columns: CsvColumns,
  },
  { additionalProperties: false },
);
export type BankCsvProfileCreate = Static<typeof BankCsvProfileCreate>;

export const CsvProfileListQuery = Type.Object({ ...PagingQuery }, { additionalProperties: false });
export type CsvProfileListQuery = Static<typeof CsvProfileListQuery>;
