import { centsToString } from '../../shared/money.js';
import { formatterFor } from '../../shared/pdf/format.js';
import type { PdfLetter } from '../../shared/pdf/letter.js';
import type { documentParties } from '../outgoing-invoices/outgoing-invoices.public.js';

type DocumentParties = Awaited<ReturnType<typeof documentParties>>;

import type { LetterRow } from './dunning.repository.js';
import type { InterestPeriod } from './interest.domain.js';

const TEXTS = {
  de: {
    reminder: 'Zahlungserinnerung',
    letter: (n: number) => `${n}. Mahnung`,
    invoice: 'Rechnung',
    invoiceDate: 'Rechnungsdatum',
    dueDate: 'Fällig seit',
    open: (number: string) => `Offener Betrag der Rechnung ${number}`,
    fee: 'Mahngebühr',
    flatFee: 'Verzugspauschale (§ 288 Abs. 5 BGB)',
    interest: 'Verzugszinsen (§ 288 BGB)',
    total: 'Zu zahlender Betrag',
  },
  en: {
    reminder: 'Payment reminder',
    letter: (n: number) =>
      `${n === 1 ? 'First' : n === 2 ? 'Second' : n === 3 ? 'Third' : `${n}th`} dunning letter`,
    invoice: 'Invoice',
    invoiceDate: 'Invoice date',
    dueDate: 'Due since',
    open: (number: string) => `Open amount of invoice ${number}`,
    fee: 'Dunning fee',
    flatFee: 'Default lump sum (§ 288 (5) BGB)',
    interest: 'Default interest (§ 288 BGB)',
    total: 'Amount due',
  },
};

/**
 * The title a letter prints: level 1 is the payment reminder, the later ones are counted as
 * dunning letters (1. Mahnung, 2. Mahnung …).
 */
export function letterTitle(language: 'de' | 'en', level: number): string {
  const t = TEXTS[language];
  return level === 1 ? t.reminder : t.letter(level - 1);
}

/** What the PDF of a letter shows: its own stored texts and amounts, parties as they are now. */
export function letterToPdf(
  r: LetterRow,
  invoice: { invoice_number: string | null; date: string | null; due_date: string | null },
  parties: DocumentParties,
): PdfLetter {
  const language = r.language === 'de' ? 'de' : 'en';
  const t = TEXTS[language];
  const s = parties.seller;
  const b = parties.buyer;
  const money = (cents: number | string) => centsToString(Number(cents));
  const claims = [{ label: t.open(invoice.invoice_number ?? ''), amount: money(r.open_amount) }];
  if (Number(r.fee) !== 0) claims.push({ label: t.fee, amount: money(r.fee) });
  if (Number(r.flat_fee) !== 0) claims.push({ label: t.flatFee, amount: money(r.flat_fee) });
  if (Number(r.interest) !== 0) claims.push({ label: t.interest, amount: money(r.interest) });
  const f = formatterFor({ language, currency: r.currency });
  const references = [{ label: t.invoice, value: invoice.invoice_number ?? '' }];
  if (invoice.date) references.push({ label: t.invoiceDate, value: f.date(invoice.date) });
  if (invoice.due_date) references.push({ label: t.dueDate, value: f.date(invoice.due_date) });
  return {
    language,
    currency: r.currency,
    title: letterTitle(language, r.level),
    number: r.number,
    date: r.date,
    seller: {
      name: s.name,
      street: s.street,
      zip: s.zip,
      city: s.city,
      country_code: s.country_code,
      vat_id: s.vat_id,
      tax_number: s.tax_number,
      email: s.email,
      phone: s.phone,
      attention: s.contact_name,
      iban: s.iban,
      bic: s.bic,
      bank_name: s.bank_name,
    },
    buyer: b
      ? {
          name: b.name,
          street: b.street,
          zip: b.zip,
          city: b.city,
          country_code: b.country_code,
          vat_id: b.vat_id,
        }
      : { name: '' },
    references,
    subject: r.subject,
    body: r.body,
    claims,
    total: { label: t.total, amount: money(r.total_due) },
    interest: (JSON.parse(r.interest_breakdown) as InterestPeriod[]).map((p) => ({
      from: p.from,
      to: p.to,
      days: p.days,
      open_amount: money(p.open_cents),
      rate: p.rate,
      amount: money(p.cents),
    })),
  };
}
