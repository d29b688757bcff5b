import { Type } from 'typebox';
import type { ImportSection } from '../../import/context.js';
import { CurrencyCode } from '../../shared/schemas.js';
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
    const account = await ctx.trx
      .selectFrom('accounts')
      .select('currency')
      .where('id', '=', ctx.accountId)
      .executeTakeFirstOrThrow();
    for (const p of items as PaymentAccountItem[]) {
      const row = await ctx.trx
        .insertInto('payment_accounts')
        .values({
          account_id: ctx.accountId,
          name: p.name,
          type: p.type ?? 'bank',
          iban: p.iban ?? null,
          bic: p.bic ?? null,
          bank_name: p.bank_name ?? null,
          currency: p.currency ?? account.currency,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ctx.remember('payment_accounts', p.key, row.id);
    }
  },
};
