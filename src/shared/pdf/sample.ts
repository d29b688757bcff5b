import { Decimal } from 'decimal.js';
import type { PdfDeduction, PdfDocument, PdfLine } from './types.js';

/**
 * A realistic, internally consistent document for tests, the benchmark and previews. Totals are
 * computed here with decimal.js the way the conventions prescribe (line net rounded half away
 * from zero, tax per rate on the summed nets).
 */
export interface SampleOptions {
  lines?: number;
  kind?: PdfDocument['kind'];
  language?: 'en' | 'de';
  number?: string | null;
  booked?: boolean;
  /** Multiplies every quantity by -1 (a credit note given with negative amounts). */
  negative?: boolean;
  deductions?: { title: string; number: string; net: string; rate: string }[];
  paid?: string;
}

const ITEMS = [
  { title: 'Konzeption & UX-Workshop', unit: 'h', price: '120.00', rate: '19', description: null },
  {
    title: 'Frontend-Entwicklung (Übersicht, Größen, Maße)',
    unit: 'Std.',
    price: '95.50',
    rate: '19',
    description: 'Umsetzung der Seitenvorlagen.\nResponsive Layouts für Smartphone, Tablet und Desktop.',
  },
  { title: 'Projektmanagement', unit: 'day', price: '780.00', rate: '19', description: null, discount: '10' },
  { title: 'Fachbuch „Barrierefreiheit“', unit: 'Stk', price: '39.90', rate: '7', description: null },
  {
    title: 'Hosting (monatlich)',
    unit: 'MON',
    price: '49.00',
    rate: '19',
    description: 'Managed hosting incl. backups',
  },
] as const;

export function sampleDocument(opts: SampleOptions = {}): PdfDocument {
  const count = opts.lines ?? 3;
  const sign = opts.negative ? -1 : 1;
  const lines: PdfLine[] = [];
  for (let i = 0; i < count; i++) {
    const item = ITEMS[i % ITEMS.length]!;
    const quantity = new Decimal((i % 7) + 1).plus(i % 2 ? '0.5' : '0').times(sign);
    const discount = 'discount' in item ? item.discount : null;
    let net = quantity.times(item.price).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    if (discount)
      net = net.times(new Decimal(100).minus(discount)).div(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    lines.push({
      position: i + 1,
      title: item.title,
      description: item.description,
      quantity: quantity.toFixed(),
      unit: item.unit,
      unit_price: item.price,
      tax_rate: item.rate,
      discount,
      net_total: net.toFixed(2),
    });
  }
  const rates = [...new Set(lines.map((l) => l.tax_rate))].sort((a, b) => new Decimal(b).comparedTo(a));
  const taxes = rates.map((rate) => {
    const net = lines
      .filter((l) => l.tax_rate === rate)
      .reduce((s, l) => s.plus(l.net_total), new Decimal(0));
    const tax = net.times(rate).div(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    return { rate, net: net.toFixed(2), tax: tax.toFixed(2) };
  });
  const net = taxes.reduce((s, t) => s.plus(t.net), new Decimal(0));
  const tax = taxes.reduce((s, t) => s.plus(t.tax), new Decimal(0));
  const gross = net.plus(tax);
  const deductions: PdfDeduction[] = (opts.deductions ?? []).map((d) => {
    const dTax = new Decimal(d.net).times(d.rate).div(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    return {
      title: d.title,
      number: d.number,
      net: d.net,
      tax: dTax.toFixed(2),
      gross: dTax.plus(d.net).toFixed(2),
    };
  });
  const due = deductions.reduce((s, d) => s.minus(d.gross), gross).minus(opts.paid ?? '0');
  const language = opts.language ?? 'de';
  const kind = opts.kind ?? 'invoice';
  const de = language === 'de';
  const titles: Record<PdfDocument['kind'], [string, string]> = {
    invoice: ['Invoice', 'Rechnung'],
    credit: ['Credit note', 'Gutschrift'],
    offer: ['Offer', 'Angebot'],
    deposit: ['Deposit invoice', 'Anzahlungsrechnung'],
    partial: ['Partial invoice', 'Abschlagsrechnung'],
    final: ['Final invoice', 'Schlussrechnung'],
  };
  return {
    kind,
    title: titles[kind][de ? 1 : 0],
    number: opts.number === undefined ? 'RE-2025-0042' : opts.number,
    date: '2025-03-14',
    due_date: '2025-03-28',
    service_period_start: '2025-02-01',
    service_period_end: '2025-02-28',
    currency: 'EUR',
    language,
    seller: {
      name: 'Nordlicht Digital GmbH',
      street: 'Große Elbstraße 145',
      zip: '22767',
      city: 'Hamburg',
      country_code: 'DE',
      vat_id: 'DE123456789',
      tax_number: '27/123/45678',
      email: 'buchhaltung@nordlicht.example',
      phone: '+49 40 1234567',
      iban: 'DE89370400440532013000',
      bic: 'COBADEFFXXX',
      bank_name: 'Commerzbank Hamburg',
    },
    buyer: {
      name: 'Müller & Söhne Bäckerei GmbH',
      attention: 'z. Hd. Frau Jürgens',
      street: 'Königsallee 12',
      zip: '40212',
      city: 'Düsseldorf',
      country_code: 'DE',
      vat_id: 'DE987654321',
      email: 'einkauf@mueller-soehne.example',
    },
    references: [{ label: de ? 'Ihre Bestellung' : 'Your order', value: 'PO-7781' }],
    order_reference: 'PO-7781',
    intro_text: de
      ? 'Sehr geehrte Frau Jürgens,\nvielen Dank für Ihren Auftrag. Wir berechnen Ihnen folgende Leistungen:'
      : 'Dear Ms Jürgens,\nthank you for your order. We invoice the following services:',
    lines,
    taxes,
    net_total: net.toFixed(2),
    tax_total: tax.toFixed(2),
    gross_total: gross.toFixed(2),
    deductions,
    amount_due: due.toFixed(2),
    paid_total: opts.paid,
    payment_terms: de
      ? 'Zahlbar innerhalb von 14 Tagen ohne Abzug.'
      : 'Payable within 14 days without deduction.',
    closing_text: de
      ? 'Mit freundlichen Grüßen\nNordlicht Digital GmbH'
      : 'Kind regards\nNordlicht Digital GmbH',
    booked: opts.booked ?? true,
  };
}
