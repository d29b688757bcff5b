import PDFDocument from 'pdfkit';
import { formatterFor } from './format.js';
import {
  BOTTOM,
  COLORS,
  type Ctx,
  drawFirstPageHead,
  drawPageFurniture,
  ensureSpace,
  LEFT,
  MM,
  measure,
  PAGE,
  put,
  RIGHT,
  registerFonts,
  rule,
  TOP,
  WIDTH,
} from './layout.js';
import type { PdfDocument, PdfParty } from './types.js';
import { XmpSafeString } from './xmp.js';

/**
 * A letter about a document (a payment reminder or dunning letter): the letterhead, address and
 * footer of the invoices, then the subject, the text, a table of what is claimed and, where
 * interest is claimed, its periods. Amounts and rates are exact decimal strings.
 */
export interface PdfLetter {
  language: 'de' | 'en';
  currency: string;
  /** Heading, printed with the number: "1. Mahnung MA-2026-00002". */
  title: string;
  number: string;
  date: string;
  seller: PdfDocument['seller'];
  buyer: PdfParty;
  /** Rows of the information block after number and date (invoice number, due date …). */
  references: { label: string; value: string }[];
  subject: string;
  body: string;
  /** What is claimed, each with its amount; `total` below a rule. */
  claims: { label: string; amount: string }[];
  total: { label: string; amount: string };
  interest: {
    from: string;
    to: string;
    days: number;
    open_amount: string;
    rate: string;
    amount: string;
  }[];
}

const LABELS = {
  de: {
    letterNo: 'Mahnungsnr.',
    interestHeading: 'Berechnung der Verzugszinsen (§ 288 BGB, Tage/365)',
    from: 'Von',
    to: 'Bis',
    days: 'Tage',
    base: 'Offener Betrag',
    rate: 'Zinssatz',
    amount: 'Zinsen',
  },
  en: {
    letterNo: 'Letter no.',
    interestHeading: 'Default interest (§ 288 BGB, actual days / 365)',
    from: 'From',
    to: 'To',
    days: 'Days',
    base: 'Open amount',
    rate: 'Rate',
    amount: 'Interest',
  },
};

export async function renderLetterPdf(letter: PdfLetter): Promise<Buffer> {
  const fmt = formatterFor(letter);
  const l = LABELS[fmt.lang];
  const heading = `${letter.title} ${letter.number}`;
  const pdf = new PDFDocument({
    size: 'A4',
    margins: { top: TOP, bottom: PAGE.height - BOTTOM, left: LEFT, right: PAGE.width - RIGHT },
    pdfVersion: '1.7',
    subset: 'PDF/A-3b',
    font: null as unknown as string,
    lang: fmt.lang === 'de' ? 'de-DE' : 'en-GB',
    displayTitle: true,
    bufferPages: true,
    info: {
      Title: new XmpSafeString(heading) as unknown as string,
      Author: new XmpSafeString(letter.seller.name) as unknown as string,
      Subject: new XmpSafeString(letter.subject) as unknown as string,
      Creator: 'pm-invoicing-service',
      CreationDate: new Date(),
    },
  });
  registerFonts(pdf);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });

  // The head and footer of the invoices read these fields of a document.
  const doc: PdfDocument = {
    kind: 'invoice',
    title: letter.title,
    number: letter.number,
    date: letter.date,
    currency: letter.currency,
    language: letter.language,
    seller: letter.seller,
    buyer: letter.buyer,
    references: letter.references,
    lines: [],
    taxes: [],
    net_total: '0',
    tax_total: '0',
    gross_total: '0',
    booked: false,
  };
  const ctx: Ctx = { pdf, doc, fmt, y: TOP, numberLabel: l.letterNo };
  drawFirstPageHead(ctx);

  ctx.y += put(pdf, letter.subject, LEFT, ctx.y, WIDTH, { bold: true, size: 10 });
  ctx.y += 3 * MM;
  for (const paragraph of letter.body.split(/\n\s*\n/)) {
    const text = paragraph.trim();
    if (!text) continue;
    ensureSpace(ctx, Math.min(measure(pdf, text, WIDTH, { size: 10 }), 40));
    ctx.y += put(pdf, text, LEFT, ctx.y, WIDTH, { size: 10 });
    ctx.y += 3 * MM;
  }

  // The claims, amounts right-aligned.
  ctx.y += 2 * MM;
  const amountX = RIGHT - 40 * MM;
  for (const c of letter.claims) {
    ensureSpace(ctx, 14);
    const h = put(pdf, c.label, LEFT, ctx.y, amountX - LEFT - 4 * MM, { size: 9.5 });
    put(pdf, fmt.money(c.amount), amountX, ctx.y, RIGHT - amountX, { size: 9.5, align: 'right' });
    ctx.y += h + 1.5 * MM;
  }
  ensureSpace(ctx, 20);
  rule(pdf, ctx.y, amountX - 40 * MM, RIGHT, COLORS.text, 0.8);
  ctx.y += 1.5 * MM;
  put(pdf, letter.total.label, LEFT, ctx.y, amountX - LEFT - 4 * MM, { size: 10, bold: true });
  ctx.y += put(pdf, fmt.money(letter.total.amount), amountX, ctx.y, RIGHT - amountX, {
    size: 10,
    bold: true,
    align: 'right',
  });
  ctx.y += 8 * MM;

  if (letter.interest.length) {
    ensureSpace(ctx, 40);
    ctx.y += put(pdf, l.interestHeading, LEFT, ctx.y, WIDTH, { bold: true, size: 9 });
    ctx.y += 1.5 * MM;
    // From, to, days, open amount, rate, interest.
    const cols = [0, 24, 48, 66, 108, 130].map((x) => LEFT + x * MM);
    const widths = [24, 24, 14, 38, 20, WIDTH / MM - 130].map((w) => w * MM);
    const right = [false, false, true, true, true, true];
    const row = (cells: string[], style: { bold?: boolean; color?: string }) => {
      ensureSpace(ctx, 12);
      cells.forEach((text, i) => {
        put(pdf, text, cols[i]!, ctx.y, widths[i]! - 2 * MM, {
          size: 8.5,
          ...style,
          align: right[i] ? 'right' : 'left',
        });
      });
      ctx.y += 11;
    };
    row([l.from, l.to, l.days, l.base, l.rate, l.amount], { color: COLORS.muted });
    rule(pdf, ctx.y - 1);
    ctx.y += 1;
    for (const p of letter.interest) {
      row(
        [
          fmt.date(p.from),
          fmt.date(p.to),
          String(p.days),
          fmt.money(p.open_amount),
          fmt.percent(p.rate),
          fmt.money(p.amount),
        ],
        {},
      );
    }
  }

  drawPageFurniture(ctx);
  pdf.end();
  return done;
}
