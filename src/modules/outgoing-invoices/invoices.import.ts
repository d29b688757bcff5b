import { Type } from 'typebox';
import type { Db } from '../../db/index.js';
import type { ImportContext, ImportSection } from '../../import/context.js';
import { validationFailed } from '../../shared/errors.js';
import { toCents } from '../../shared/money.js';
import { CurrencyCode, DateString } from '../../shared/schemas.js';
import { importDefaults } from './invoices.read-model.js';
import { insertWithLines } from './invoices.repository.js';
import { type LineItemInput, LineItemsInput, type ParsedLine, parseLineItems } from './line-items.js';

const PaymentItem = Type.Object(
  {
    amount: Type.Number({ exclusiveMinimum: 0 }),
    date: DateString,
    payment_account: Type.String({ description: 'Key of a payment account earlier in the file' }),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const InvoiceItem = Type.Object(
  {
    key: Type.Optional(Type.String({ minLength: 1 })),
    type: Type.Optional(Type.Enum(['invoice', 'credit'])),
    status: Type.Optional(Type.Enum(['open', 'bookable', 'booked'])),
    invoice_number: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    client: Type.Optional(Type.String({ description: 'Key of a client earlier in the file' })),
    project: Type.Optional(Type.String({ description: 'Key of a project earlier in the file' })),
    contact: Type.Optional(Type.String({ description: 'Key of a contact earlier in the file' })),
    credited_invoice: Type.Optional(
      Type.String({ description: 'Key of an invoice earlier in this section' }),
    ),
    title: Type.Optional(Type.String()),
    date: Type.Optional(DateString),
    due_date: Type.Optional(DateString),
    payment_term_days: Type.Optional(Type.Integer({ minimum: 0 })),
    service_period_start: Type.Optional(DateString),
    service_period_end: Type.Optional(DateString),
    currency: Type.Optional(CurrencyCode),
    intro_text: Type.Optional(Type.String()),
    closing_text: Type.Optional(Type.String()),
    line_items: LineItemsInput,
    payments: Type.Optional(Type.Array(PaymentItem, { description: 'Booked invoices only' })),
  },
  { additionalProperties: false },
);

interface InvoiceItem {
  key?: string;
  type?: 'invoice' | 'credit';
  status?: 'open' | 'bookable' | 'booked';
  invoice_number?: string;
  client?: string;
  project?: string;
  contact?: string;
  credited_invoice?: string;
  title?: string;
  date?: string;
  due_date?: string;
  payment_term_days?: number;
  service_period_start?: string;
  service_period_end?: string;
  currency?: string;
  intro_text?: string;
  closing_text?: string;
  line_items: LineItemInput[];
  payments?: { amount: number; date: string; payment_account: string; description?: string }[];
}

type DefaultsOf = Awaited<ReturnType<typeof importDefaults>>;

/**
 * The loop of a section of documents (invoices, offers): each item with its place in the file
 * (`offers.2`), its line items parsed exactly (a 422 names the bad field) and the reader of the
 * defaults its client gives (the account read once for the section).
 */
export async function forEachDocument<T extends { line_items: LineItemInput[] }>(
  ctx: ImportContext,
  key: string,
  items: unknown[],
  each: (doc: T, at: string, lines: ParsedLine[], defaultsOf: DefaultsOf) => Promise<void>,
): Promise<void> {
  const defaultsOf = await importDefaults(ctx.trx, ctx.accountId);
  for (const [i, doc] of (items as T[]).entries()) {
    const at = `${key}.${i}`;
    await each(doc, at, parseLineItems(doc.line_items, `${at}.line_items`), defaultsOf);
  }
}

/** A payment received for an imported booked invoice, in cents. */
export interface ImportedPayment {
  account_id: number;
  type: 'outgoing_invoice';
  invoice_id: number;
  payment_account_id: number;
  amount: number;
  currency: string;
  date: string;
  description: string | null;
}

/**
 * Writes a payment of an imported invoice. The payments module owns the ledger (and its one
 * id space) and builds on invoices, so it hands its writer in (payments.import.ts) rather than
 * invoicing importing it: no cycle between the two modules.
 */
export type ImportedPaymentWriter = (trx: Db, payment: ImportedPayment) => Promise<unknown>;

/**
 * One-time invoices and credits from another system. Booked ones keep their numbers as given
 * (unique per account) and do not advance the service's sequences: automatic numbering skips
 * numbers that are taken.
 */
export const invoicesSection = (recordPayment: ImportedPaymentWriter): ImportSection => ({
  key: 'outgoing_invoices',
  item: InvoiceItem,
  description:
    'One-time invoices and credits. `status: booked` needs `invoice_number`, `client`, `date` and line items; `payments` (booked invoices only) refer to payment accounts by key.',
  run: (ctx, items) =>
    forEachDocument<InvoiceItem>(ctx, 'outgoing_invoices', items, async (inv, at, lines, defaultsOf) => {
      const booked = inv.status === 'booked';
      if (booked && (!inv.invoice_number || !inv.client || !inv.date || lines.length === 0)) {
        throw validationFailed([
          { field: at, message: 'a booked invoice needs invoice_number, client, date and line items' },
        ]);
      }
      const clientId = ctx.optionalRef('clients', inv.client, `${at}.client`);
      const defaults = await defaultsOf(clientId);
      const now = new Date().toISOString();
      const { row } = await insertWithLines(
        ctx.trx,
        {
          account_id: ctx.accountId,
          type: inv.type ?? 'invoice',
          status: inv.status ?? 'open',
          invoice_number: inv.invoice_number ?? null,
          client_id: clientId,
          project_id: ctx.optionalRef('projects', inv.project, `${at}.project`),
          contact_id: ctx.optionalRef('contacts', inv.contact, `${at}.contact`),
          credited_invoice_id: ctx.optionalRef(
            'outgoing_invoices',
            inv.credited_invoice,
            `${at}.credited_invoice`,
          ),
          title: inv.title ?? null,
          date: inv.date ?? null,
          due_date: inv.due_date ?? null,
          payment_term_days: inv.payment_term_days ?? defaults.payment_term_days,
          service_period_start: inv.service_period_start ?? null,
          service_period_end: inv.service_period_end ?? null,
          currency: inv.currency ?? defaults.currency,
          intro_text: inv.intro_text ?? null,
          closing_text: inv.closing_text ?? null,
          booked_at: booked ? now : null,
        },
        lines,
      );
      ctx.remember('outgoing_invoices', inv.key, row.id);
      if (!inv.payments?.length) return;
      if (!booked || inv.type === 'credit') {
        throw validationFailed([{ field: `${at}.payments`, message: 'only booked invoices take payments' }]);
      }
      let open = Number(row.lines_gross);
      for (const [n, p] of inv.payments.entries()) {
        const amount = toCents(p.amount);
        if (amount === undefined || amount > open) {
          throw validationFailed([
            {
              field: `${at}.payments.${n}.amount`,
              message: 'must have two decimals at most and not exceed the open amount',
            },
          ]);
        }
        open -= amount;
        await recordPayment(ctx.trx, {
          account_id: ctx.accountId,
          type: 'outgoing_invoice',
          invoice_id: row.id,
          payment_account_id: ctx.ref(
            'payment_accounts',
            p.payment_account,
            `${at}.payments.${n}.payment_account`,
          ),
          amount,
          currency: row.currency,
          date: p.date,
          description: p.description ?? null,
        });
      }
    }),
});
