import { type Static, Type } from 'typebox';
import { Id, Nullable, Timestamp } from '../../shared/schemas.js';

const Gap = Type.Object({
  sequence: Type.Integer({ minimum: 1 }),
  invoice_number: Type.String(),
  reason: Type.Enum(['deleted', 'not_booked', 'unexplained'] as const, {
    description:
      '`deleted`: the number belongs to a soft-deleted invoice (readable by id); `not_booked`: to an invoice that is not booked; `unexplained`: to none (never expected)',
  }),
  invoice_id: Nullable(Id),
  deleted_at: Nullable(Timestamp),
  deleted_by: Nullable(Id),
});

export const NumberSeries = Type.Object(
  {
    kind: Type.Enum(['invoice', 'credit'] as const, { description: 'Invoices (all but credits) or credits' }),
    year: Nullable(
      Type.Integer({ description: 'The year the counter restarts with; null: the format has none' }),
    ),
    format: Type.String({ description: 'The account’s number format, e.g. `RE-{YYYY}-{NNNNN}`' }),
    prefix: Type.String({ description: 'What precedes the counter in this series, e.g. `RE-2026-`' }),
    last_sequence: Type.Integer({ minimum: 0 }),
    last_number: Nullable(Type.String()),
    booked_count: Type.Integer({
      minimum: 0,
      description: 'Live booked invoices holding a number of the series',
    }),
    gap_free: Type.Boolean({ description: 'Every number 1 … last is held by a live booked invoice' }),
    gaps: Type.Array(Gap, { description: 'Numbers of the series without a live booked invoice, and why' }),
  },
  { $id: 'InvoiceNumberSeries' },
);
export type NumberSeries = Static<typeof NumberSeries>;
