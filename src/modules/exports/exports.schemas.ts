import { type Static, Type } from 'typebox';
import { DateString, Id, Money, Nullable, PagingQuery, Timestamp } from '../../shared/schemas.js';

export const DatevExportCreate = Type.Object(
  {
    date_from: { ...DateString, description: 'First day of the export (booking, payment or invoice date)' },
    date_to: {
      ...DateString,
      description: 'Last day of the export; in the fiscal year of `date_from` (DATEV imports one at a time)',
    },
    lock: Type.Optional(
      Type.Boolean({
        description:
          'Lock the months of the range for good (Festschreibung; whole months only): nothing dated in them can be booked, changed or deleted any more, and the header says so. There is no unlock.',
      }),
    ),
    documents: Type.Optional(
      Type.Boolean({
        description:
          'Add the documents themselves (Belegbilder): the PDF of every exported outgoing invoice and credit and the file of every exported incoming invoice, with DATEV’s `document.xml` index; each booking row links its document by GUID (Beleglink)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type DatevExportCreate = Static<typeof DatevExportCreate>;

export const DatevExport = Type.Object(
  {
    id: Id,
    kind: Type.Literal('datev', { description: 'The format of the export' }),
    date_from: DateString,
    date_to: DateString,
    locked: Type.Boolean({ description: 'The months of the export are locked (Festschreibung flag 1)' }),
    file_name: Type.String({ description: 'Name of the ZIP' }),
    sha256: Type.String({ description: 'Hex SHA-256 of the ZIP: every download gives these bytes' }),
    byte_size: Type.Integer({ minimum: 1 }),
    bookings: Type.Integer({ minimum: 0, description: 'Rows of EXTF_Buchungsstapel.csv' }),
    debtors: Type.Integer({ minimum: 0, description: 'Clients in EXTF_Debitoren_Kreditoren.csv' }),
    creditors: Type.Integer({ minimum: 0, description: 'Suppliers in EXTF_Debitoren_Kreditoren.csv' }),
    documents: Type.Integer({
      minimum: 0,
      description: 'Document files (Belegbilder) in the ZIP, listed in document.xml; 0 without `documents`',
    }),
    created_by: Nullable(Id),
    created_at: Timestamp,
    download_url: Type.String({ description: 'Where the ZIP is read: GET /exports/{id}/download' }),
  },
  {
    $id: 'DatevExport',
    additionalProperties: false,
    description:
      'A DATEV export (EXTF format 700): a ZIP with EXTF_Buchungsstapel.csv (category 21) and EXTF_Debitoren_Kreditoren.csv (category 16), Windows-1252, and with `documents` the Belegbilder and their document.xml; kept byte for byte',
  },
);
export type DatevExport = Static<typeof DatevExport>;

export const ExportListQuery = Type.Object(PagingQuery, { additionalProperties: false });

const Month = Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$', description: 'The month, YYYY-MM' });

export const PeriodParams = Type.Object({ period: Month }, { additionalProperties: false });

export const LockedPeriod = Type.Object(
  {
    period: Month,
    locked_at: Timestamp,
    locked_by: Nullable({ ...Id, description: 'The user who locked it' }),
    export_id: Nullable({ ...Id, description: 'The export that locked it; null for a lock without one' }),
  },
  {
    $id: 'LockedPeriod',
    additionalProperties: false,
    description: 'A month locked for good (Festschreibung)',
  },
);

export const VatReturnQuery = Type.Object(
  {
    period: Type.String({
      pattern: '^[0-9]{4}-(0[1-9]|1[0-2]|Q[1-4])$',
      description: 'A month (`2026-11`) or a quarter (`2026-Q4`)',
    }),
  },
  { additionalProperties: false },
);
export type VatReturnQuery = Static<typeof VatReturnQuery>;

export const OssQuery = Type.Object(
  {
    period: Type.String({
      pattern: '^[0-9]{4}-Q[1-4]$',
      description: 'A quarter (`2026-Q4`): the One-Stop-Shop return is quarterly',
    }),
  },
  { additionalProperties: false },
);
export type OssQuery = Static<typeof OssQuery>;

const DocumentRef = Type.Object(
  {
    kind: Type.Union([
      Type.Literal('outgoing_invoice'),
      Type.Literal('incoming_invoice'),
      Type.Literal('payment'),
    ]),
    id: Id,
    number: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

export const VatReturn = Type.Object(
  {
    period: Type.String(),
    date_from: DateString,
    date_to: DateString,
    vat_method: Type.Union([Type.Literal('accrual'), Type.Literal('cash')]),
    figures: Type.Array(
      Type.Object(
        {
          kennzahl: Type.String({ description: 'Kennzahl of the Umsatzsteuer-Voranmeldung, e.g. `81`' }),
          description: Type.String(),
          base: Nullable({ ...Money, description: 'Assessment basis (net); null where the form has none' }),
          tax: Nullable({ ...Money, description: 'Tax; null where the form computes none' }),
          documents: Type.Array(DocumentRef, { description: 'The documents behind the figure' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Non-empty Kennzahlen in the order of the form; 83 (VAT due) always last' },
    ),
  },
  {
    $id: 'VatReturn',
    additionalProperties: false,
    description: 'The figures of the German VAT return (Umsatzsteuer-Voranmeldung) of a month or quarter',
  },
);

export const OssReturn = Type.Object(
  {
    period: Type.String(),
    date_from: DateString,
    date_to: DateString,
    countries: Type.Array(
      Type.Object(
        {
          country: Type.String({ description: 'ISO code of the EU state the consumers live in' }),
          base: Money,
          tax: Money,
          rates: Type.Array(
            Type.Object(
              {
                rate: Type.Number({ description: 'The VAT rate charged, in percent' }),
                base: { ...Money, description: 'Net amount at the rate' },
                tax: Money,
                documents: Type.Array(DocumentRef, { description: 'The documents behind the figure' }),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'By country (ISO code order), each by rate' },
    ),
    totals: Type.Object({ base: Money, tax: Money }, { additionalProperties: false }),
  },
  {
    $id: 'OssReturn',
    additionalProperties: false,
    description:
      'The figures of the One-Stop-Shop (OSS) return of a quarter: supplies to consumers in other EU states taxed at that state’s rate, by country and rate',
  },
);

export const AgeingQuery = Type.Object(
  { date: Type.Optional({ ...DateString, description: 'The day of the open items; default today' }) },
  { additionalProperties: false },
);
export type AgeingQuery = Static<typeof AgeingQuery>;

const Buckets = Type.Object(
  {
    not_due: Money,
    days_1_30: Money,
    days_31_60: Money,
    days_61_90: Money,
    over_90: Money,
    total: Money,
  },
  { additionalProperties: false, description: 'Open amounts by days overdue on the day' },
);

export const ReceivablesAgeing = Type.Object(
  {
    date: DateString,
    totals: Buckets,
    clients: Type.Array(
      Type.Object(
        {
          client_id: Nullable(Id),
          name: Type.String(),
          buckets: Type.Omit(Buckets, ['total']),
          total: Money,
          invoices: Type.Array(
            Type.Object(
              {
                id: Id,
                number: Nullable(Type.String()),
                due_date: DateString,
                days_overdue: Type.Integer(),
                open: Money,
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    $id: 'ReceivablesAgeing',
    additionalProperties: false,
    description: 'Open receivables on a day per client, by days overdue; the totals equal the open items',
  },
);

export const PayablesAgeing = Type.Object(
  {
    date: DateString,
    totals: Buckets,
    suppliers: Type.Array(
      Type.Object(
        {
          supplier_id: Nullable(Id),
          name: Type.String({ description: 'The supplier as the invoice names it' }),
          buckets: Type.Omit(Buckets, ['total']),
          total: Money,
          invoices: Type.Array(
            Type.Object(
              {
                id: Id,
                number: Nullable(Type.String()),
                due_date: DateString,
                days_overdue: Type.Integer(),
                open: Money,
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    $id: 'PayablesAgeing',
    additionalProperties: false,
    description:
      'Open incoming invoices on a day per supplier, by days overdue; the totals equal the open items',
  },
);
