import { type Static, Type } from 'typebox';
import { DateString, Id, Nullable, PagingQuery, Timestamp } from '../../shared/schemas.js';
import { MAX_LEVELS, PLACEHOLDERS } from './dunning.domain.js';

const Amount = Type.Number({ description: 'Amount in the invoice currency, at most two decimals' });

const placeholders = PLACEHOLDERS.map((p) => `\`{${p}}\``).join(', ');

const LevelText = Type.Object(
  {
    subject: Type.String({ minLength: 1, maxLength: 200 }),
    body: Type.String({ minLength: 1, maxLength: 5000 }),
  },
  { additionalProperties: false },
);

const levelProps = {
  days_after_due: Type.Integer({
    minimum: 0,
    maximum: 365,
    description:
      'Level 1: days after the due date; later levels: days after the previous level’s letter. A letter is never dated on or before the due date',
  }),
  fee: Type.Number({
    'x-max-decimals': 2,
    minimum: 0,
    maximum: 10_000,
    description: 'A fixed dunning fee of this level, in the invoice currency',
  }),
  charge_interest: Type.Boolean({ description: 'The letter claims statutory default interest (§ 288 BGB)' }),
  flat_fee: Type.Boolean({
    description:
      'The letter claims the € 40 lump sum of § 288 (5) BGB: only from business clients, only on EUR invoices, at most once per invoice',
  }),
  delivery: Type.Union([Type.Literal('email'), Type.Literal('post')], {
    description:
      '`email`: sent through the mail outbox with POST /dunnings/{id}/send; `post`: the PDF is printed',
  }),
  texts: Type.Object(
    { de: LevelText, en: LevelText },
    {
      additionalProperties: false,
      description: `Subject and text of the letter in German and English; placeholders: ${placeholders}`,
    },
  ),
};

const LevelInput = Type.Object(levelProps, { additionalProperties: false });
export type LevelInput = Static<typeof LevelInput>;

export const Level = Type.Object(
  {
    level: Type.Integer({ minimum: 1, maximum: MAX_LEVELS, description: 'Position, from 1' }),
    ...levelProps,
  },
  { $id: 'DunningLevel' },
);

export const Levels = Type.Object(
  {
    levels: Type.Array(Level),
    updated_at: Nullable({ ...Timestamp, description: 'null: the built-in levels, never changed' }),
  },
  { $id: 'DunningLevels' },
);
export type Levels = Static<typeof Levels>;

export const LevelsBody = Type.Object(
  { levels: Type.Array(LevelInput, { minItems: 1, maxItems: MAX_LEVELS }) },
  { additionalProperties: false },
);
export type LevelsBody = Static<typeof LevelsBody>;

export const BaseRate = Type.Object(
  {
    valid_from: DateString,
    rate: Type.Number({ description: 'Percent, e.g. 1.27 or -0.88' }),
    source: Type.Union([Type.Literal('shipped'), Type.Literal('account')], {
      description: '`shipped`: the published value the service ships; `account`: set by this account',
    }),
  },
  { $id: 'DunningBaseRate' },
);
export type BaseRate = Static<typeof BaseRate>;

export const BaseRateParams = Type.Object({
  valid_from: Type.String({
    format: 'date',
    pattern: '^[0-9]{4}-(01|07)-01$',
    description: 'A 1 January or 1 July (the base rate changes only then), from 2002 on',
  }),
});

export const BaseRateBody = Type.Object(
  {
    rate: Type.Number({
      'x-max-decimals': 2,
      minimum: -20,
      maximum: 50,
      description: 'The base rate in percent, at most two decimals',
    }),
  },
  { additionalProperties: false },
);

const STATUSES = ['open', 'sent', 'cancelled', 'settled'] as const;
const Status = Type.Union(
  STATUSES.map((s) => Type.Literal(s)),
  {
    description:
      '`open`: made; `sent`: e-mailed or marked sent; `cancelled`: withdrawn, its claims void; `settled`: the invoice was paid',
  },
);

const InterestPeriod = Type.Object({
  from: DateString,
  to: DateString,
  days: Type.Integer({ minimum: 1 }),
  open_amount: Amount,
  base_rate: Type.Number({ description: 'Percent' }),
  rate: Type.Number({ description: 'Percent: the base rate + 9 (business) or + 5 (consumer)' }),
  amount: { ...Amount, description: 'This period’s interest rounded to the cent; the total is rounded once' },
  exact_amount: Type.String({ description: 'This period’s interest with six decimals' }),
});

const letterProps = {
  invoice_id: Id,
  client_id: Nullable(Id),
  level: Type.Integer({ minimum: 1, maximum: MAX_LEVELS }),
  date: DateString,
  currency: Type.String(),
  language: Type.Union([Type.Literal('de'), Type.Literal('en')]),
  open_amount: { ...Amount, description: 'What is open of the invoice on the letter’s date' },
  fee: Amount,
  flat_fee: { ...Amount, description: 'The € 40 lump sum of § 288 (5) BGB, or 0' },
  interest: {
    ...Amount,
    description: 'Default interest from the day after the due date to the letter’s date',
  },
  interest_breakdown: Type.Array(InterestPeriod),
  total_due: { ...Amount, description: 'open_amount + fee + flat_fee + interest' },
  subject: Type.String(),
  body: Type.String(),
  delivery: Type.Union([Type.Literal('email'), Type.Literal('post')]),
};

export const Letter = Type.Object(
  {
    id: Id,
    number: Type.String({ description: 'Of its own gap-free series, e.g. MA-2026-00001' }),
    ...letterProps,
    status: Status,
    sent_at: Nullable(Timestamp),
    cancelled_at: Nullable(Timestamp),
    settled_at: Nullable(Timestamp),
    charges_invoice_id: Nullable({
      ...Id,
      description: 'The invoice of the letter’s fee and interest (POST /dunnings/{id}/invoice-charges)',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Dunning' },
);
export type Letter = Static<typeof Letter>;

const LetterPreview = Type.Object({ ...letterProps }, { $id: 'DunningPreview' });
export type LetterPreview = Static<typeof LetterPreview>;

export const RunBody = Type.Object(
  {
    date: Type.Optional({
      ...DateString,
      description: 'The run’s date (default today, UTC); not after today',
    }),
    dry_run: Type.Optional(Type.Boolean({ description: 'Only answer what the run would create' })),
  },
  { additionalProperties: false },
);
export type RunBody = Static<typeof RunBody>;

export const RunResult = Type.Object(
  {
    date: DateString,
    dry_run: Type.Boolean(),
    created: Type.Array(Letter, { description: 'The letters the run made (empty for a dry run)' }),
    would_create: Type.Array(LetterPreview, { description: 'Dry run: the letters it would make' }),
    settled: Type.Integer({
      minimum: 0,
      description: 'Letters that became `settled` (their invoice is paid)',
    }),
  },
  { $id: 'DunningRun' },
);
export type RunResult = Static<typeof RunResult>;

export const LetterListQuery = Type.Object(
  {
    ...PagingQuery,
    invoice_id: Type.Optional(Id),
    client_id: Type.Optional(Id),
    level: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LEVELS })),
    status: Type.Optional(Status),
    date_from: Type.Optional(DateString),
    date_to: Type.Optional(DateString),
  },
  { additionalProperties: false },
);
export type LetterListQuery = Static<typeof LetterListQuery>;

export const NumberSeries = Type.Object(
  {
    year: Type.Integer({ description: 'The year of the letters’ dates; each year counts from 1' }),
    format: Type.String({ description: 'Always `MA-{YYYY}-{NNNNN}`' }),
    prefix: Type.String({ description: 'What precedes the counter, e.g. `MA-2026-`' }),
    last_sequence: Type.Integer({ minimum: 0 }),
    last_number: Nullable(Type.String()),
    letter_count: Type.Integer({ minimum: 0, description: 'Letters holding a number of the series' }),
    gap_free: Type.Boolean({ description: 'Every number 1 … last is held by a letter' }),
    gaps: Type.Array(Type.Object({ sequence: Type.Integer({ minimum: 1 }), number: Type.String() }), {
      description: 'Numbers of the series no letter holds (never expected: letters are not deleted)',
    }),
  },
  { $id: 'DunningNumberSeries' },
);
export type NumberSeries = Static<typeof NumberSeries>;

export const NumberSeriesQuery = Type.Object({ ...PagingQuery }, { additionalProperties: false });
