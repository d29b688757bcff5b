import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import PDFDocument from 'pdfkit';
import { readXmlInvoice } from '../src/modules/incoming-invoices/xml/index.js';
import { Rng } from './random.js';

/**
 * The XRechnung test suite's invoices drawn as PDFs in layouts made to differ from the
 * project's own templates (eval/templates.ts): other orders of the blocks, a headline carrying
 * number and date ("RECHNUNG Nr. 4711 vom 05.06.2018"), labels above, beside or below their
 * value, totals on the left or right, a letterhead with several dates (order, delivery, print),
 * a buyer block with the buyer's own VAT id, Dutch beside German, English and French, dates
 * written out, and every kind of thousands separator. The XML is the truth (eval/xml-truth.ts);
 * what is drawn comes from it. The style of each document is fixed by its file name.
 */
type Lang = 'de' | 'en' | 'fr' | 'nl';

const W = {
  de: { inv: 'Rechnung', cr: 'Gutschrift', no: ['Rechnungsnummer', 'Beleg-Nr.', 'Nr.'], date: ['Rechnungsdatum', 'Belegdatum', 'Datum'], order: 'Bestelldatum', delivery: 'Lieferdatum', printed: 'Druckdatum', due: 'Zahlungsziel', net: 'Summe netto', tax: 'zzgl. USt', gross: ['Rechnungsbetrag', 'Gesamtsumme', 'Summe brutto'], due_amt: 'Zu zahlen', vat: 'USt-IdNr.', cust: 'Kunde', of: 'vom', qty: 'Menge', price: 'Preis', amount: 'Betrag', item: 'Artikel' },
  en: { inv: 'Invoice', cr: 'Credit note', no: ['Invoice number', 'Reference', 'No.'], date: ['Invoice date', 'Dated', 'Date'], order: 'Order date', delivery: 'Shipped', printed: 'Printed', due: 'Payment due', net: 'Net', tax: 'Sales tax', gross: ['Total due', 'Invoice amount', 'Total'], due_amt: 'Balance', vat: 'VAT reg.', cust: 'Bill to', of: 'of', qty: 'Quantity', price: 'Rate', amount: 'Amount', item: 'Item' },
  fr: { inv: 'Facture', cr: 'Avoir', no: ['Numéro', 'Facture n°', 'N°'], date: ['Date de facturation', 'Émise le', 'Date'], order: 'Date de commande', delivery: 'Date de livraison', printed: 'Imprimé le', due: 'Échéance', net: 'Total HT', tax: 'TVA', gross: ['Total TTC', 'Montant TTC', 'Net à payer TTC'], due_amt: 'Reste dû', vat: 'TVA intracom.', cust: 'Client', of: 'du', qty: 'Qté', price: 'P.U.', amount: 'Montant', item: 'Désignation' },
  nl: { inv: 'Factuur', cr: 'Creditnota', no: ['Factuurnummer', 'Factuurnr.', 'Nummer'], date: ['Factuurdatum', 'Datum'], order: 'Orderdatum', delivery: 'Leverdatum', printed: 'Afdrukdatum', due: 'Vervaldatum', net: 'Subtotaal', tax: 'BTW', gross: ['Totaal', 'Totaal incl. BTW', 'Te betalen'], due_amt: 'Openstaand', vat: 'BTW-nummer', cust: 'Klant', of: 'van', qty: 'Aantal', price: 'Prijs', amount: 'Bedrag', item: 'Omschrijving' },
}; // biome-ignore format: a table of words

const MONTHS: Record<Lang, string[]> = {
  de: ['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'],
  en: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
  fr: ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'],
  nl: ['januari', 'februari', 'maart', 'april', 'mei', 'juni', 'juli', 'augustus', 'september', 'oktober', 'november', 'december'],
}; // biome-ignore format: a table of words

const p2 = (n: number) => String(n).padStart(2, '0');
/** Date styles per language, including written-out months and day-month-year with dashes. */
const DATES: Record<Lang, ((y: number, m: number, d: number) => string)[]> = {
  de: [(y, m, d) => `${p2(d)}.${p2(m)}.${y}`, (y, m, d) => `${d}. ${MONTHS.de[m - 1]} ${y}`, (y, m, d) => `${p2(d)}-${p2(m)}-${y}`],
  en: [(y, m, d) => `${MONTHS.en[m - 1]} ${d}, ${y}`, (y, m, d) => `${MONTHS.en[m - 1]!.slice(0, 3)} ${d}, ${y}`, (y, m, d) => `${d} ${MONTHS.en[m - 1]} ${y}`, (y, m, d) => `${MONTHS.en[m - 1]} ${d} , ${y}`],
  fr: [(y, m, d) => `${p2(d)}/${p2(m)}/${y}`, (y, m, d) => `${d} ${MONTHS.fr[m - 1]} ${y}`],
  nl: [(y, m, d) => `${p2(d)}-${p2(m)}-${y}`, (y, m, d) => `${d} ${MONTHS.nl[m - 1]} ${y}`],
}; // biome-ignore format: a table of one-liners

/** Thousands and decimal separators: 1.234,56 · 1,234.56 · 1 234,56 · 1'234.56 · 1234,56. */
const NUMBERS: [string, string][] = [
  ['.', ','],
  [',', '.'],
  ['\u00a0', ','],
  ["'", '.'],
  ['', ','],
];

export interface ForeignPdf {
  name: string;
  style: string;
  pdf: Buffer;
}

/** Held out = the second hex digit of the SHA-256 of the file name is 0–5 (about 3 in 8). */
export const isForeignHeldOut = (name: string): boolean =>
  Number.parseInt(createHash('sha256').update(name).digest('hex')[1]!, 16) < 6;

/**
 * A salt mixed into the seed of every document's style (`--layout-salt S` of the eval, or
 * FOREIGN_LAYOUT_SALT): the same documents drawn in other layouts, for a fresh held-out draw
 * after the earlier renderings were scored. Empty (the default) keeps the original layouts,
 * so dev figures stay comparable. Which part a document belongs to never depends on it.
 */
export const layoutSalt = (): string => process.env.FOREIGN_LAYOUT_SALT ?? '';

export async function foreignPdf(
  name: string,
  xml: string,
  salt = layoutSalt(),
): Promise<ForeignPdf | undefined> {
  const read = readXmlInvoice(xml, {
    maxChars: 16 * 1024 * 1024,
    maxDepth: 64,
    maxAttributes: 32,
  });
  const f = read.fields;
  if (!f.invoice_number || !f.date || !f.gross_total) return undefined;
  const keyed = salt === '' ? name : `${salt}\u0000${name}`;
  const seed = Number.parseInt(createHash('sha256').update(keyed).digest('hex').slice(2, 10), 16);
  const rng = new Rng(seed);
  const lang = rng.pick<Lang>(['de', 'en', 'fr', 'nl']);
  const w = W[lang];
  const [th, dec] = rng.pick(NUMBERS);
  const dateOf = rng.pick(DATES[lang]);
  const fmtDate = (iso: string) => {
    const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
    return dateOf(y, m, d);
  };
  const cur = f.currency ?? 'EUR';
  const curStyle = rng.int(0, 2);
  const money = (v: string) => {
    const x = new Decimal(v);
    const [int, frac] = x.abs().toFixed(2).split('.') as [string, string];
    const n = `${x.isNegative() ? '-' : ''}${int.replace(/\B(?=(\d{3})+(?!\d))/g, th)}${dec}${frac}`;
    return curStyle === 0 ? `${n} ${cur}` : curStyle === 1 ? `${cur} ${n}` : n;
  };
  const headline = rng.pick(['headline', 'above', 'beside', 'below'] as const);
  const totalsLeft = rng.chance(0.4);
  const font = rng.pick(['Times-Roman', 'Courier', 'Helvetica-Oblique', 'Times-Bold'] as const);
  const credit = f.document_type === 'Credit';
  const numberLabel = rng.pick(w.no);
  const dateLabel = rng.pick(w.date);
  const grossLabel = rng.pick(w.gross);

  const doc = new PDFDocument({ size: 'A4', margin: 0 });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((r) => doc.on('end', () => r(Buffer.concat(chunks))));
  doc.on('data', (c: Buffer) => chunks.push(c));
  doc.font(font);
  const t = (s: string, x: number, y: number, size = 9, opts: PDFKit.Mixins.TextOptions = {}) =>
    doc.fontSize(size).text(s, x, y, { lineBreak: false, ...opts });

  // Letterhead: the supplier centred or on the right, with the supplier's VAT id in it or in the footer.
  const supplier = f.supplier_name ?? 'Lieferant';
  const vatInHead = rng.chance(0.5);
  const headX = rng.pick([50, 300]);
  t(supplier, headX, 40, 14);
  t(
    [f.supplier_street, [f.supplier_postcode, f.supplier_city].filter(Boolean).join(' ')]
      .filter(Boolean)
      .join(' · '),
    headX,
    60,
    8,
  );
  if (vatInHead && f.supplier_vat_id) t(`${w.vat} ${f.supplier_vat_id}`, headX, 72, 8);
  // Other dates of the letterhead: print date, order date, delivery date.
  const shift = (days: number) =>
    new Date(Date.parse(`${f.date}T00:00:00Z`) + days * 864e5).toISOString().slice(0, 10);
  t(`${w.printed}: ${fmtDate(shift(rng.int(1, 9)))}`, 400, 20, 7);

  // Buyer block, with the buyer's own VAT id after the customer label.
  const buyerY = 110;
  t(`${w.cust}:`, 50, buyerY, 8);
  t('Musterkunde AG', 50, buyerY + 12, 10);
  t('Hauptstraße 5, 10115 Berlin', 50, buyerY + 24, 9);
  if (rng.chance(0.6)) t(`${w.vat} DE987654321`, 50, buyerY + 36, 9);

  let y = 190;
  const title = credit ? w.cr : w.inv;
  if (headline === 'headline') {
    t(`${title.toUpperCase()} ${w.no.at(-1)} ${f.invoice_number} ${w.of} ${fmtDate(f.date)}`, 50, y, 13);
    y += 30;
    t(`${w.order}: ${fmtDate(shift(-rng.int(3, 30)))}`, 50, y);
    y += 14;
  } else {
    t(title, 50, y, 16);
    y += 28;
    const pairs: [string, string][] = [
      [numberLabel, f.invoice_number],
      [dateLabel, fmtDate(f.date)],
      [w.order, fmtDate(shift(-rng.int(3, 30)))],
      [w.delivery, fmtDate(shift(-rng.int(0, 5)))],
    ];
    if (f.due_date) pairs.push([w.due, fmtDate(f.due_date)]);
    // The number and date are not always first.
    for (let i = pairs.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      [pairs[i], pairs[j]] = [pairs[j]!, pairs[i]!];
    }
    if (headline === 'beside') {
      for (const [label, value] of pairs) {
        t(`${label}:`, 50, y);
        t(value, 160, y);
        y += 13;
      }
    } else {
      // One row of cells: label above (or below) its value.
      pairs.forEach(([label, value], i) => {
        const x = 50 + i * 100;
        t(label, x, headline === 'above' ? y : y + 12, 7);
        t(value, x, headline === 'above' ? y + 11 : y, 9);
      });
      y += 30;
    }
  }

  // Lines: without rulings, item first or amount first.
  y += 16;
  const cols = [50, 300, 370, 460];
  for (const [i, h] of [w.item, w.qty, w.price, w.amount].entries()) t(h, cols[i]!, y, 8);
  y += 14;
  for (const line of (f.line_items ?? []).slice(0, 20)) {
    t((line.title ?? line.description ?? '').slice(0, 45), cols[0]!, y);
    if (line.quantity) t(new Decimal(line.quantity).toString(), cols[1]!, y);
    if (line.unit_price) t(money(line.unit_price), cols[2]!, y);
    if (line.net_total) t(money(line.net_total), cols[3]!, y);
    y += 13;
    if (y > 640) break;
  }
  // Totals, left or right.
  y += 20;
  const lx = totalsLeft ? 50 : 330;
  const vx = lx + 120;
  const rows: [string, string][] = [];
  if (f.net_total) rows.push([w.net, money(f.net_total)]);
  for (const tax of f.taxes ?? []) rows.push([`${w.tax} ${tax.rate} %`, money(tax.tax)]);
  if (!f.taxes?.length && f.tax_total) rows.push([w.tax, money(f.tax_total)]);
  rows.push([grossLabel, money(f.gross_total)]);
  if (f.amount_due && f.amount_due !== f.gross_total) rows.push([w.due_amt, money(f.amount_due)]);
  for (const [label, value] of rows) {
    t(label, lx, y);
    t(value, vx, y);
    y += 13;
  }
  // Footer: bank, supplier VAT id (when not in the letterhead).
  const foot = [
    supplier,
    f.iban ? `IBAN ${f.iban}` : '',
    !vatInHead && f.supplier_vat_id ? `${w.vat} ${f.supplier_vat_id}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  t(foot, 50, 800, 7);
  doc.end();
  return { name, style: `${lang}/${headline}/${totalsLeft ? 'left' : 'right'}/${font}`, pdf: await done };
}
