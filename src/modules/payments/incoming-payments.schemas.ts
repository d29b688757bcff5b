import { type Static, Type } from 'typebox';
import { DateString, Id, Money, Nullable } from '../../shared/schemas.js';

const PositiveAmount = { ...Money, exclusiveMinimum: 0, maximum: 1e11 };

export const IncomingPaymentCreate = Type.Object(
  {
    amount: PositiveAmount,
    date: DateString,
    payment_account_id: Type.Optional(Nullable(Id)),
    reference: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    incoming_invoice_id: Type.Optional({
      ...Id,
      description: 'Shorthand for one document paid with the whole amount',
    }),
    invoices: Type.Optional(
      Type.Array(
        Type.Object({ incoming_invoice_id: Id, amount: PositiveAmount }, { additionalProperties: false }),
        {
          minItems: 1,
          maxItems: 100,
          description: 'Documents paid and the share of each; the shares must sum to `amount`',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type IncomingPaymentCreate = Static<typeof IncomingPaymentCreate>;

export const IncomingCreditCreate = Type.Object(
  {
    invoice_id: { ...Id, description: 'Incoming document of type `Invoice`' },
    credit_id: { ...Id, description: 'Incoming document of type `Credit`' },
    amount: Type.Optional({
      ...PositiveAmount,
      description: 'Default: the smaller of the two open amounts',
    }),
    date: Type.Optional(DateString),
  },
  { additionalProperties: false },
);
export type IncomingCreditCreate = Static<typeof IncomingCreditCreate>;
