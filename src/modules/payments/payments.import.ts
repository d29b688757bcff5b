import { Type } from 'typebox';
import type { ImportSection } from '../../import/context.js';
import { CurrencyCode } from '../../shared/schemas.js';
import { invoicesSection } from '../outgoing-invoices/outgoing-invoices.public.js';
import { accountCurrency } from './payments.read-model.js';
import { insertPayment, insertPaymentAccount } from './payments.repository.js';
import { PAYMENT_ACCOUNT_TYPES } from './payments.schemas.js';

const PaymentAccountItem = Type.Object(
  {
    key: Type.Optional(Type.String({ minLength: 1 })),
    name: Type.String({ minLength: 1 }),
    type: Type.Optional(Type.Enum(PAYMENT_ACCOUNT_TYPES)),
    iban: Type.Optional(Type.String()),
    bic: Type.Optional(Type.String()),
    bank_name: Type.Optional(Type.String()),
    currency: Type.Optional(CurrencyCode),
  },
  { additionalProperties: false },
);

interface PaymentAccountItem {
  key?: string;
  name: string;
  type?: string;
  iban?: string;
  bic?: string;
  bank_name?: string;
  currency?: string;
}

export const paymentAccountsSection: ImportSection = {
  key: 'payment_accounts',
  item: PaymentAccountItem,
  description: 'Bank and cash accounts payments are received on. `currency` defaults to the account’s.',
  async run(ctx, items) {
    const currency = await accountCurrency(ctx.trx, ctx.accountId);
    for (const p of items as PaymentAccountItem[]) {
      const row = await insertPaymentAccount(ctx.trx, {
        account_id: ctx.accountId,
        name: p.name,
        type: p.type ?? 'bank',
        iban: p.iban ?? null,
        bic: p.bic ?? null,
        bank_name: p.bank_name ?? null,
        currency: p.currency ?? currency,
      });
      ctx.remember('payment_accounts', p.key, row.id);
    }
  },
};

/**
 * Outgoing invoices with the payments received for them (the `outgoing_invoices` section):
 * invoicing reads and stores the invoices, this module writes their payments into the one
 * ledger (its id space), so the dependency runs from payments to invoices only.
 */
export const outgoingInvoicesSection: ImportSection = invoicesSection(insertPayment);
