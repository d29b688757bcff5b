import {
  addDays,
  type BaseRate,
  defaultInterest,
  type InterestPeriod,
  type Reduction,
} from './interest.domain.js';

/**
 * The rules of dunning: the levels, which level an overdue invoice reaches on a day, and what a
 * letter claims. Pure: the service reads the invoice, its payments and its letters and writes
 * what these functions decide.
 */

export type Language = 'de' | 'en';
export const LANGUAGES: readonly Language[] = ['de', 'en'];

export interface LevelText {
  subject: string;
  body: string;
}

export interface Level {
  /** Days after the due date (level 1) or after the previous level's letter (the others). */
  days_after_due: number;
  /** Cents, a fixed fee of this level. */
  fee: number;
  charge_interest: boolean;
  /** The € 40 lump sum of § 288 (5) BGB: business clients, EUR invoices, once per invoice. */
  flat_fee: boolean;
  /** `email`: sent through the mail outbox; `post`: only produced as a PDF. */
  delivery: 'email' | 'post';
  texts: Record<Language, LevelText>;
}

export const FLAT_FEE_CENTS = 4000;
export const MAX_LEVELS = 10;

/** The placeholders a level's subject and text may hold. */
export const PLACEHOLDERS = [
  'letter_number',
  'letter_date',
  'invoice_number',
  'invoice_date',
  'due_date',
  'open_amount',
  'fee',
  'flat_fee',
  'interest',
  'total_due',
  'client_name',
  'company_name',
] as const;

const PLACEHOLDER = /\{([a-z_]+)\}/g;

/** The first placeholder of `text` that is not known, if any. */
export function unknownPlaceholder(text: string): string | undefined {
  const known = new Set<string>(PLACEHOLDERS);
  for (const m of text.matchAll(PLACEHOLDER)) if (!known.has(m[1]!)) return m[1];
  return undefined;
}

/** Fills `{name}` placeholders. */
export const fill = (template: string, values: Partial<Record<string, string>>): string =>
  template.replace(PLACEHOLDER, (m, name: string) => values[name] ?? m);

/** The default: a payment reminder without a fee, then a first and a second dunning letter. */
export const DEFAULT_LEVELS: readonly Level[] = Object.freeze([
  {
    days_after_due: 7,
    fee: 0,
    charge_interest: false,
    flat_fee: false,
    delivery: 'email',
    texts: {
      de: {
        subject: 'Zahlungserinnerung zur Rechnung {invoice_number}',
        body:
          'Sehr geehrte Damen und Herren,\n\nsicher ist es Ihrer Aufmerksamkeit entgangen: Unsere Rechnung ' +
          '{invoice_number} vom {invoice_date}, fällig am {due_date}, ist noch offen. Wir bitten Sie, den ' +
          'offenen Betrag von {total_due} zu überweisen. Sollten Sie bereits gezahlt haben, betrachten ' +
          'Sie dieses Schreiben bitte als gegenstandslos.\n\nMit freundlichen Grüßen\n{company_name}',
      },
      en: {
        subject: 'Payment reminder: invoice {invoice_number}',
        body:
          'Dear Sir or Madam,\n\nour invoice {invoice_number} of {invoice_date}, due on {due_date}, has ' +
          'not been paid yet. Please transfer the open amount of {total_due}. If you have already paid, ' +
          'please disregard this letter.\n\nKind regards\n{company_name}',
      },
    },
  },
  {
    days_after_due: 14,
    fee: 500,
    charge_interest: true,
    flat_fee: true,
    delivery: 'email',
    texts: {
      de: {
        subject: '1. Mahnung zur Rechnung {invoice_number}',
        body:
          'Sehr geehrte Damen und Herren,\n\ntrotz unserer Zahlungserinnerung ist unsere Rechnung ' +
          '{invoice_number} vom {invoice_date}, fällig am {due_date}, noch nicht beglichen. Zum offenen ' +
          'Betrag kommen Mahngebühren, Verzugszinsen nach § 288 BGB und gegebenenfalls die ' +
          'Verzugspauschale hinzu. Bitte überweisen Sie insgesamt {total_due}.\n\nMit freundlichen ' +
          'Grüßen\n{company_name}',
      },
      en: {
        subject: 'First dunning letter: invoice {invoice_number}',
        body:
          'Dear Sir or Madam,\n\ndespite our reminder, our invoice {invoice_number} of {invoice_date}, ' +
          'due on {due_date}, is still unpaid. A dunning fee, default interest under § 288 BGB and, ' +
          'where it applies, the default lump sum are added to the open amount. Please transfer ' +
          '{total_due} in total.\n\nKind regards\n{company_name}',
      },
    },
  },
  {
    days_after_due: 14,
    fee: 1000,
    charge_interest: true,
    flat_fee: true,
    delivery: 'post',
    texts: {
      de: {
        subject: '2. Mahnung zur Rechnung {invoice_number}',
        body:
          'Sehr geehrte Damen und Herren,\n\nunsere Rechnung {invoice_number} vom {invoice_date} ist ' +
          'trotz Mahnung weiterhin offen. Bitte überweisen Sie {total_due} umgehend; andernfalls ' +
          'werden wir die Forderung ohne weitere Ankündigung gerichtlich geltend machen.\n\nMit ' +
          'freundlichen Grüßen\n{company_name}',
      },
      en: {
        subject: 'Second dunning letter: invoice {invoice_number}',
        body:
          'Dear Sir or Madam,\n\nour invoice {invoice_number} of {invoice_date} is still unpaid despite ' +
          'our dunning letter. Please transfer {total_due} immediately; otherwise we will take legal ' +
          'action without further notice.\n\nKind regards\n{company_name}',
      },
    },
  },
] satisfies Level[]);

export type LetterStatus = 'open' | 'sent' | 'cancelled' | 'settled';

/** A letter an invoice already has (any status: a cancelled level is not made again). */
export interface PastLetter {
  level: number;
  date: string;
  flat_fee: number;
  status: LetterStatus;
}

/**
 * The level an invoice reaches on `today`, or null: the one after its last letter (level 1 when
 * it has none), once that level's days have passed since the due date or the last letter's
 * date, and never on or before the due date. One level a run: a level whose days passed long
 * ago still comes before the next one.
 */
export function nextLevel(
  levels: readonly Level[],
  dueDate: string,
  letters: readonly PastLetter[],
  today: string,
): number | null {
  const last = letters.reduce<PastLetter | undefined>((a, l) => (!a || l.level > a.level ? l : a), undefined);
  const next = last ? last.level + 1 : 1;
  const level = levels[next - 1];
  if (!level) return null;
  const from = addDays(last ? last.date : dueDate, level.days_after_due);
  const earliest = from > dueDate ? from : addDays(dueDate, 1);
  return today >= earliest ? next : null;
}

export interface LetterInput {
  level: Level;
  date: string;
  dueDate: string;
  /** What the invoice claims (gross, cents). */
  amountCents: number;
  reductions: readonly Reduction[];
  consumer: boolean;
  currency: string;
  letters: readonly PastLetter[];
  baseRates: readonly BaseRate[];
}

export interface LetterAmounts {
  open_amount: number;
  fee: number;
  flat_fee: number;
  interest: number;
  interest_breakdown: InterestPeriod[];
  total_due: number;
}

/**
 * What a letter claims: the amount open on its date, the level's fee, the lump sum (when the
 * level charges it, the client is a business, the invoice is in euros and no earlier letter
 * that stands charged it), and the default interest accrued from the due date to the letter's
 * date (the whole of it: a later letter's interest replaces an earlier one's).
 */
export function letterAmounts(input: LetterInput): LetterAmounts {
  const open = input.reductions.reduce((o, r) => (r.date <= input.date ? o - r.cents : o), input.amountCents);
  const flatCharged = input.letters.some((l) => l.status !== 'cancelled' && l.flat_fee > 0);
  const flat =
    input.level.flat_fee && !input.consumer && input.currency === 'EUR' && !flatCharged ? FLAT_FEE_CENTS : 0;
  const interest = input.level.charge_interest
    ? defaultInterest({
        amountCents: input.amountCents,
        reductions: input.reductions,
        dueDate: input.dueDate,
        until: input.date,
        consumer: input.consumer,
        baseRates: input.baseRates,
      })
    : { cents: 0, periods: [] };
  return {
    open_amount: open,
    fee: input.level.fee,
    flat_fee: flat,
    interest: interest.cents,
    interest_breakdown: interest.periods,
    total_due: open + input.level.fee + flat + interest.cents,
  };
}
