import { type Static, Type } from 'typebox';
import { DateString, Id, Money, Nullable, PagingQuery, Timestamp } from '../../shared/schemas.js';

export const CREDIT_TRANSFER_VERSIONS = ['pain.001.001.09', 'pain.001.001.03'] as const;
export const MANDATE_SCHEMES = ['CORE', 'B2B'] as const;
export const MANDATE_SEQUENCES = ['first', 'recurring'] as const;

/** An amount to pay or collect: positive, at most two decimals (checked), at most the open amount. */
const PayAmount = Type.Number({
  exclusiveMinimum: 0,
  maximum: 999_999_999.99,
  description: 'At most two decimals; at most the open amount (default: the open amount)',
});

export const CreditTransferCreate = Type.Object(
  {
    payment_account_id: {
      ...Id,
      description: 'The account paid from (debtor): a payment account with an IBAN, in EUR',
    },
    execution_date: { ...DateString, description: 'Requested execution date: today or later' },
    version: Type.Optional(
      Type.Enum(CREDIT_TRANSFER_VERSIONS, {
        description: 'Default `pain.001.001.09`; `pain.001.001.03` for older bank software',
      }),
    ),
    invoices: Type.Array(
      Type.Object(
        {
          incoming_invoice_id: { ...Id, description: 'An incoming invoice' },
          amount: Type.Optional(PayAmount),
        },
        {
          additionalProperties: false,
        },
      ),
      { minItems: 1, maxItems: 1000, description: 'The incoming invoices to pay, each once' },
    ),
  },
  { additionalProperties: false },
);
export type CreditTransferCreate = Static<typeof CreditTransferCreate>;

export const DirectDebitCreate = Type.Object(
  {
    payment_account_id: { ...Id, description: 'The account collected to (creditor): with an IBAN, in EUR' },
    collection_date: { ...DateString, description: 'Requested collection date: today or later' },
    invoices: Type.Optional(
      Type.Array(
        Type.Object(
          {
            invoice_id: { ...Id, description: 'A booked outgoing invoice' },
            amount: Type.Optional(PayAmount),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 1000,
          description:
            'The outgoing invoices to collect; default: every open EUR invoice due by the collection date of a client with an active mandate',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type DirectDebitCreate = Static<typeof DirectDebitCreate>;

const RunItem = Type.Object({
  invoice_id: { ...Id, description: 'The incoming (credit transfer) or outgoing (direct debit) invoice' },
  amount: Money,
  end_to_end_id: Type.String({
    description: 'Unique within the account; the bank statement line carries it back',
  }),
  name: Type.String({
    description: 'The creditor (credit transfer) or debtor (direct debit) as the file names it',
  }),
  iban: Type.String(),
  bic: Nullable(Type.String()),
  remittance: Type.String(),
  mandate_id: Nullable({ ...Id, description: 'The mandate collected on (direct debits)' }),
  sequence_type: Nullable(Type.Enum(['FRST', 'RCUR'] as const)),
  status: Type.Enum(['in_transit', 'confirmed', 'paid_otherwise', 'returned'] as const, {
    description:
      '`confirmed` once a bank statement line with the end-to-end id recorded the payment; `paid_otherwise`: a credit transfer still waiting whose invoice was paid in full otherwise meanwhile (a payment recorded by hand, a bank line matched by number), so it pays nothing any more; `returned`: a direct debit the debtor’s bank took back, or a credit transfer returned or reversed (a statement line with its end-to-end id and a return reason, `bank_transaction_id`), its payment undone',
  }),
  bank_transaction_id: Nullable({ ...Id, description: 'The bank statement line that confirmed it' }),
});

export const SepaRun = Type.Object(
  {
    id: Id,
    kind: Type.Enum(['credit_transfer', 'direct_debit'] as const),
    version: Type.String({
      description: 'The file’s message: pain.001.001.09, pain.001.001.03 or pain.008.001.08',
    }),
    payment_account_id: Id,
    requested_date: { ...DateString, description: 'The execution (credit transfers) or collection date' },
    message_id: Type.String(),
    number_of_transactions: Type.Integer(),
    control_sum: Money,
    file_url: Type.String({ description: 'Where the file is downloaded: the same bytes every time' }),
    items: Type.Array(RunItem),
    created_at: Timestamp,
  },
  { $id: 'SepaRun' },
);
export type SepaRun = Static<typeof SepaRun>;

export const SepaMandate = Type.Object(
  {
    id: Id,
    client_id: Id,
    reference: Type.String(),
    signed_on: DateString,
    iban: Type.String(),
    bic: Nullable(Type.String()),
    scheme: Type.Enum(MANDATE_SCHEMES),
    sequence: Type.Enum(MANDATE_SEQUENCES, {
      description: '`first` until a direct debit file collects on it (FRST), `recurring` after that (RCUR)',
    }),
    status: Type.Enum(['active', 'revoked'] as const),
    revoked_at: Nullable(Timestamp),
    debtor_name: Nullable(
      Type.String({ description: 'The account holder as the mandate names them; null: the client’s name' }),
    ),
    pending_amendment: Nullable(
      Type.Object(
        {
          original_reference: Nullable(
            Type.String({ description: 'The reference before the amendment (`OrgnlMndtId`)' }),
          ),
          original_iban: Nullable(
            Type.String({
              description: 'The IBAN before the amendment (`OrgnlDbtrAcct` when the bank is the same)',
            }),
          ),
          debtor_bank_changed: Type.Boolean({
            description:
              'The new IBAN is at another bank: the next collection names `SMNDA` as the original debtor agent and is a FRST',
          }),
        },
        {
          description:
            'What the next direct debit file reports as amended (`AmdmntInd`, `AmdmntInfDtls`), once; null when nothing is pending',
        },
      ),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'SepaMandate' },
);
export type SepaMandate = Static<typeof SepaMandate>;

const DebtorName = Type.String({
  minLength: 1,
  maxLength: 140,
  description:
    'The account holder as the mandate names them (default: the client’s name); cut to 70 SEPA characters in files',
});

export const SepaMandateCreate = Type.Object(
  {
    reference: Type.String({
      minLength: 1,
      maxLength: 35,
      description:
        "Mandate reference, unique within the account: letters, digits and + ? / - : ( ) . , ' (no blanks, not starting with / nor holding //)",
    }),
    signed_on: { ...DateString, description: 'Date of signature: not in the future' },
    iban: Type.String({
      minLength: 15,
      maxLength: 42,
      description: 'The debtor’s IBAN (blanks allowed), checked',
    }),
    bic: Type.Optional(Nullable(Type.String({ minLength: 8, maxLength: 11, description: 'BIC, checked' }))),
    scheme: Type.Optional(Type.Enum(MANDATE_SCHEMES, { description: 'Default `CORE`' })),
    sequence: Type.Optional(
      Type.Enum(MANDATE_SEQUENCES, {
        description: 'Default `first`; `recurring` for a mandate already collected on elsewhere',
      }),
    ),
    debtor_name: Type.Optional(Nullable(DebtorName)),
  },
  { additionalProperties: false },
);
export type SepaMandateCreate = Static<typeof SepaMandateCreate>;

export const SepaMandateUpdate = Type.Object(
  {
    reference: Type.Optional(SepaMandateCreate.properties.reference),
    iban: Type.Optional(SepaMandateCreate.properties.iban),
    bic: Type.Optional(Nullable(Type.String({ minLength: 8, maxLength: 11, description: 'BIC, checked' }))),
    debtor_name: Type.Optional(Nullable(DebtorName)),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'An amendment: a new reference, a new debtor account (IBAN, BIC) or the account holder’s name. The next direct debit file reports a new reference or IBAN of a mandate collected on before.',
  },
);
export type SepaMandateUpdate = Static<typeof SepaMandateUpdate>;

export const EmptyBody = Type.Object({}, { additionalProperties: false });

export const MandateListQuery = Type.Object({ ...PagingQuery }, { additionalProperties: false });
export type MandateListQuery = Static<typeof MandateListQuery>;

export const RunListQuery = Type.Object({ ...PagingQuery }, { additionalProperties: false });
export type RunListQuery = Static<typeof RunListQuery>;
