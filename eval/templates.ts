import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import { type DateStyle, dateStyle, type MoneyStyle, moneyStyle, rateText } from './format.js';
import { groupIban, type InvoiceData, type Lang } from './invoice-data.js';
import type { Rng } from './random.js';

const require = createRequire(import.meta.url);
const NOTO = require.resolve('@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf');
const NOTO_BOLD = require.resolve('@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf');

export const FONTS = ['Helvetica', 'Times-Roman', 'Courier', 'Noto'] as const;
export type Font = (typeof FONTS)[number];

/** The words of each language a template prints; several variants where invoices differ. */
const L = {
  de: {
    title: ['Rechnung'], credit: ['Gutschrift'],
    number: ['Rechnungsnummer', 'Rechnungs-Nr.', 'Rechnungsnr.', 'Rechnung Nr.'], creditNumber: ['Gutschriftsnummer', 'Gutschrift-Nr.'],
    date: ['Rechnungsdatum', 'Datum'], creditDate: ['Gutschriftsdatum', 'Datum'],
    delivery: ['Lieferdatum', 'Leistungsdatum'], due: ['Fällig am', 'Zahlbar bis', 'Fälligkeitsdatum'],
    customer: ['Kundennummer', 'Kunden-Nr.'], net: ['Nettobetrag', 'Summe netto', 'Zwischensumme'], tax: ['MwSt', 'USt'],
    on: 'auf', gross: ['Gesamtbetrag', 'Rechnungsbetrag', 'Endsumme', 'Gesamtbetrag brutto'],
    prepaid: ['abzgl. Anzahlung', 'Anzahlung', 'bereits gezahlt'], amountDue: ['Zahlbetrag', 'Noch zu zahlen'],
    cols: ['Pos.', 'Beschreibung', 'Menge', 'Einzelpreis'], lineTotal: ['Gesamtbetrag', 'Gesamtbetrag', 'Betrag', 'Gesamt'],
    vat: ['USt-IdNr.', 'USt-ID'], buyerVat: 'Ihre USt-IdNr.', taxNo: 'Steuernummer', bank: 'Bankverbindung', page: 'Seite',
    pay: 'Bitte überweisen Sie den Betrag unter Angabe der Rechnungsnummer.', thanks: 'Vielen Dank für Ihren Auftrag!',
  },
  en: {
    title: ['Invoice', 'Tax invoice'], credit: ['Credit note'],
    number: ['Invoice No.', 'Invoice number', 'Invoice #'], creditNumber: ['Credit note no.', 'Credit note number'],
    date: ['Invoice date', 'Date', 'Date of issue'], creditDate: ['Date', 'Credit note date'],
    delivery: ['Delivery date', 'Date of supply'], due: ['Due date', 'Payment due'],
    customer: ['Customer no.', 'Account no.'], net: ['Subtotal', 'Net amount', 'Total net'], tax: ['VAT'],
    on: 'on', gross: ['Total amount', 'Total', 'Invoice total', 'Grand total'],
    prepaid: ['Less deposit', 'Amount paid', 'Prepayment'], amountDue: ['Amount due', 'Balance due'],
    cols: ['No.', 'Description', 'Qty', 'Unit price'], lineTotal: ['Amount', 'Total', 'Line total'],
    vat: ['VAT No.', 'VAT reg. no.'], buyerVat: 'Customer VAT No.', taxNo: 'Tax number', bank: 'Bank details', page: 'Page',
    pay: 'Please pay by bank transfer quoting the invoice number.', thanks: 'Thank you for your business.',
  },
  fr: {
    title: ['Facture'], credit: ['Avoir'],
    number: ['N° de facture', 'Facture n°', 'Numéro de facture'], creditNumber: ['Avoir n°', "N° d'avoir"],
    date: ['Date de facture', 'Date', "Date d'émission"], creditDate: ['Date', "Date de l'avoir"],
    delivery: ['Date de livraison'], due: ["Date d'échéance", 'Échéance', 'À payer avant le'],
    customer: ['N° client', 'Client n°'], net: ['Total HT', 'Montant HT', 'Sous-total HT'], tax: ['TVA'],
    on: 'sur', gross: ['Total TTC', 'Montant TTC'],
    prepaid: ['Acompte versé', 'Déjà payé'], amountDue: ['Net à payer', 'Reste à payer'],
    cols: ['N°', 'Désignation', 'Qté', 'Prix unitaire HT'], lineTotal: ['Montant HT', 'Total HT'],
    vat: ['N° TVA intracommunautaire', 'N° TVA'], buyerVat: 'N° TVA client', taxNo: 'SIRET', bank: 'Coordonnées bancaires', page: 'Page',
    pay: 'Paiement par virement bancaire en indiquant le numéro de facture.', thanks: 'Merci de votre confiance.',
  },
}; // biome-ignore format: a table of words

type Words = (typeof L)['de'];

/** One document being drawn: the data, its formats and a few drawing helpers. */
export class Sheet {
  readonly pdf: PDFKit.PDFDocument;
  readonly w: Words;
  readonly money: MoneyStyle;
  readonly date: DateStyle;
  readonly sign: number;
  private readonly chunks: Buffer[] = [];
  private readonly regular: string;
  private readonly bold: string;

  constructor(
    readonly d: InvoiceData,
    readonly rng: Rng,
    font: Font,
  ) {
    this.pdf = new PDFDocument({ size: 'A4', margin: 0, autoFirstPage: true, info: { Title: d.number } });
    this.pdf.on('data', (c: Buffer) => this.chunks.push(c));
    if (font === 'Noto') {
      this.pdf.registerFont('R', NOTO);
      this.pdf.registerFont('B', NOTO_BOLD);
      this.regular = 'R';
      this.bold = 'B';
    } else {
      this.regular = font;
      this.bold = font === 'Times-Roman' ? 'Times-Bold' : `${font}-Bold`;
    }
    this.w = L[d.lang];
    this.money = moneyStyle(rng, d.lang, d.currency);
    this.date = dateStyle(rng, d.lang);
    this.sign = d.negative ? -1 : 1;
  }

  pick = <T>(xs: readonly T[]): T => this.rng.pick(xs);
  get lang(): Lang {
    return this.d.lang;
  }

  text(x: number, y: number, s: string, opts: { size?: number; bold?: boolean; right?: boolean } = {}): void {
    const size = opts.size ?? 9;
    this.pdf.font(opts.bold ? this.bold : this.regular).fontSize(size);
    const at = opts.right ? x - this.pdf.widthOfString(s) : x;
    this.pdf.text(s, at, y, { lineBreak: false });
  }

  amount(v: InvoiceData['gross']): string {
    return this.money(v.times(this.sign));
  }

  async end(): Promise<Buffer> {
    const done = new Promise<Buffer>((resolve) =>
      this.pdf.on('end', () => resolve(Buffer.concat(this.chunks))),
    );
    this.pdf.end();
    return done;
  }
}

export function senderLine(s: Sheet, x: number, y: number): void {
  const p = s.d.supplier;
  s.text(x, y, `${p.name} · ${p.street} · ${p.postcode} ${p.city}`, { size: 7 });
}

export function buyerBlock(s: Sheet, x: number, y: number): number {
  const b = s.d.buyer;
  for (const [i, line] of [b.name, b.street, `${b.postcode} ${b.city}`].entries())
    s.text(x, y + i * 12, line, { size: 10 });
  return y + 40;
}

/** The line-item table from `y`; returns where it ended. Breaks onto new pages as needed. */
export function itemTable(s: Sheet, y: number, right = 545): number {
  const [pos, desc, qty, price] = s.w.cols;
  const header = (yy: number) => {
    s.text(50, yy, pos!, { bold: true });
    s.text(85, yy, desc!, { bold: true });
    s.text(right - 215, yy, qty!, { bold: true, right: true });
    s.text(right - 115, yy, price!, { bold: true, right: true });
    s.text(right, yy, s.pick(s.w.lineTotal), { bold: true, right: true });
    return yy + 16;
  };
  let yy = header(y);
  s.d.items.forEach((it, i) => {
    if (yy > 760) {
      s.text(545, 810, `${s.w.page} ${s.pdf.bufferedPageRange().count}`, { size: 7, right: true });
      s.pdf.addPage();
      yy = header(60);
    }
    s.text(50, yy, String(i + 1));
    s.text(85, yy, it.title);
    s.text(right - 215, yy, String(it.quantity), { right: true });
    s.text(right - 115, yy, s.money(it.unitPrice, false), { right: true });
    s.text(right, yy, s.money(it.net.times(s.sign), false), { right: true });
    yy += 13;
  });
  return yy + 10;
}

/** Totals as label and amount on one row; VAT as one row per rate in one of three styles. */
export function totalsRows(s: Sheet, y: number, labelX = 340, right = 545): number {
  if (y > 700) {
    s.pdf.addPage();
    y = 60;
  }
  const tax = s.pick(s.w.tax);
  const style = s.rng.int(0, 2);
  let yy = y;
  const row = (label: string, value: string, bold = false) => {
    s.text(labelX, yy, label, { bold });
    s.text(right, yy, value, { right: true, bold });
    yy += 14;
  };
  row(s.pick(s.w.net), s.amount(s.d.net));
  for (const t of s.d.taxes) {
    const rate = rateText(s.lang, t.rate);
    if (style === 0) row(`${tax} ${rate}`, s.amount(t.tax));
    else if (style === 1)
      row(`${rate} ${tax} ${s.w.on} ${s.money(t.net.times(s.sign), false)}`, s.amount(t.tax));
    else {
      s.text(
        labelX,
        yy,
        `${rate} ${tax} ${s.w.on} ${s.money(t.net.times(s.sign), false)}: ${s.amount(t.tax)}`,
      );
      yy += 14;
    }
  }
  row(s.pick(s.w.gross), s.amount(s.d.gross), true);
  if (s.d.prepaid) {
    row(s.pick(s.w.prepaid), s.money(s.d.prepaid.neg()));
    row(s.pick(s.w.amountDue), s.amount(s.d.due!), true);
  }
  return yy + 10;
}

export function bankFooter(s: Sheet, y = 770): void {
  const p = s.d.supplier;
  s.text(50, y, p.name, { size: 7 });
  s.text(50, y + 9, p.street, { size: 7 });
  s.text(50, y + 18, `${p.postcode} ${p.city}`, { size: 7 });
  s.text(230, y, s.w.bank, { size: 7 });
  s.text(230, y + 9, `IBAN ${groupIban(s.d.iban)}`, { size: 7 });
  s.text(230, y + 18, `BIC ${s.d.bic}`, { size: 7 });
  s.text(420, y, `${s.pick(s.w.vat)} ${s.d.vatId}`, { size: 7 });
  if (s.d.taxNumber) s.text(420, y + 9, `${s.w.taxNo} ${s.d.taxNumber}`, { size: 7 });
}

/** Meta fields (number, dates, customer) as [label, value] in the order a template prints them. */
export function metaFields(s: Sheet): [string, string][] {
  const d = s.d;
  const out: [string, string][] = [];
  out.push([s.pick(d.credit ? s.w.creditNumber : s.w.number), d.number]);
  const dateRow: [string, string] = [s.pick(d.credit ? s.w.creditDate : s.w.date), s.date(d.date)];
  const deliveryRow: [string, string] | undefined = d.deliveryDate
    ? [s.pick(s.w.delivery), s.date(d.deliveryDate)]
    : undefined;
  // The delivery date printed before the invoice date: the trap of taking the first date.
  if (deliveryRow && s.rng.chance(0.5)) out.push(deliveryRow, dateRow);
  else out.push(dateRow, ...(deliveryRow ? [deliveryRow] : []));
  if (s.rng.chance(0.6)) out.push([s.pick(s.w.customer), String(s.rng.int(10000, 99999))]);
  if (d.dueDate) out.push([s.pick(s.w.due), s.date(d.dueDate)]);
  if (d.buyerVatId) out.push([s.w.buyerVat, d.buyerVatId]);
  return out;
}

export const titleOf = (s: Sheet): string => s.pick(s.d.credit ? s.w.credit : s.w.title);
