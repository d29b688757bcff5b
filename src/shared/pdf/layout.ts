import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as fontkit from 'fontkit';
import type { Formatter } from './format.js';
import type { PdfDocument, PdfParty } from './types.js';

/**
 * Page geometry and the fixed parts of a page (letterhead, address field, information block,
 * running header, footer), after DIN 5008 form B: address field 45 mm from the top, 20 mm
 * from the left, information block at 118 mm (a little wider than the norm's 125 mm for long English dates), fold marks at 105/210 mm.
 */
export const MM = 72 / 25.4;
export const PAGE = { width: 595.28, height: 841.89 };
export const LEFT = 25 * MM;
export const RIGHT = PAGE.width - 20 * MM;
export const WIDTH = RIGHT - LEFT;
/** Where content continues on following pages (below the running header). */
export const TOP = 27 * MM;
/** Content ends here; the footer lives below. */
export const BOTTOM = PAGE.height - 33 * MM;
const INFO_X = 118 * MM;

export const COLORS = {
  text: '#1a1a1a',
  muted: '#5f6368',
  rule: '#c9ccd1',
  fill: '#eef1f5',
  accent: '#1f3a5f',
};

// PDF/A forbids non-embedded fonts, so the standard Helvetica is never used: Noto Sans covers
// umlauts, ß, € and the typographic dashes and quotes an invoice text may contain.
const require = createRequire(import.meta.url);
export const FONT_FILES = {
  regular: require.resolve('@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf'),
  bold: require.resolve('@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf'),
};

let parsedFonts: { regular: fontkit.Font; bold: fontkit.Font } | undefined;

/**
 * Parsed once per process and handed to every document: parsing Noto's layout tables costs far
 * more than drawing an invoice. pdfkit keeps the per-document state (glyph subset, widths) in its
 * own font wrapper, and all font work happens synchronously, so sharing the parsed font is safe,
 * but for one thing: fontkit caches glyph objects, and a glyph keeps the code points of the text
 * that first produced it, which pdfkit writes into the document's ToUnicode map. Shared across
 * documents, one odd input made every later PDF of the process read "4ffer" for "Offer" when its
 * text was extracted (found by running the unit PDF test after the fuzz test in one process). So
 * each document starts with an empty glyph cache, and words are shaped per document (pdfkit's own
 * per-document cache) instead of in a cache shared by all documents.
 */
export function registerFonts(pdf: PDFKit.PDFDocument): void {
  parsedFonts ??= { regular: parse(FONT_FILES.regular), bold: parse(FONT_FILES.bold) };
  for (const font of [parsedFonts.regular, parsedFonts.bold]) resetGlyphs(font);
  // pdfkit accepts fontkit fonts (anything with layout()); its typings only list byte sources.
  pdf.registerFont('regular', parsedFonts.regular as unknown as Uint8Array);
  pdf.registerFont('bold', parsedFonts.bold as unknown as Uint8Array);
  pdf.font('bold');
  pdf.font('regular');
}

/** fontkit's glyph cache (`_glyphs`, internal): emptied, so code points come from this document. */
function resetGlyphs(font: fontkit.Font): void {
  const f = font as unknown as { _glyphs?: Record<number, unknown> };
  if (f._glyphs && typeof f._glyphs === 'object') f._glyphs = {};
}

function parse(file: string): fontkit.Font {
  const font = fontkit.create(readFileSync(file));
  if (!('layout' in font)) throw new Error(`${file} is a font collection`);
  return font;
}

export interface TextStyle {
  bold?: boolean;
  size?: number;
  color?: string;
  align?: 'left' | 'right' | 'center';
  underline?: boolean;
}

/** Drawing state shared by the layout functions: the pdfkit document and the write position. */
export interface Ctx {
  pdf: PDFKit.PDFDocument;
  doc: PdfDocument;
  fmt: Formatter;
  y: number;
  /** The bytes of `doc.logo` (PNG or JPEG), printed top left above the seller's name. */
  logo?: Buffer;
  /** The label of the number in the information block, when not the document kind's. */
  numberLabel?: string;
}

function applyStyle(pdf: PDFKit.PDFDocument, s: TextStyle): void {
  pdf
    .font(s.bold ? 'bold' : 'regular')
    .fontSize(s.size ?? 9)
    .fillColor(s.color ?? COLORS.text);
}

/**
 * PDF/A forbids showing the .notdef glyph, so characters the font lacks (emoji, CJK …) become
 * "?" instead of an empty box; tabs and carriage returns would otherwise print as such boxes too.
 */
export function printable(text: string): string {
  const cleaned = text.replace(/\r\n?/g, '\n').replace(/\t/g, ' ');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
  const plain = cleaned.replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, '');
  if (!/[^\n -\u017f]/.test(plain) || !parsedFonts) return plain;
  const font = parsedFonts.regular;
  let out = '';
  for (const ch of plain) {
    const cp = ch.codePointAt(0)!;
    out += cp <= 0x17f || font.hasGlyphForCodePoint(cp) ? ch : '?';
  }
  return out;
}

export function measure(pdf: PDFKit.PDFDocument, text: string, width: number, s: TextStyle = {}): number {
  if (!text) return 0;
  applyStyle(pdf, s);
  return pdf.heightOfString(printable(text), { width, align: s.align });
}

/** Draws text in a box at an absolute position and returns the height used. */
export function put(
  pdf: PDFKit.PDFDocument,
  text: string,
  x: number,
  y: number,
  width: number,
  s: TextStyle = {},
): number {
  if (!text) return 0;
  applyStyle(pdf, s);
  pdf.text(printable(text), x, y, { width, align: s.align ?? 'left', underline: s.underline });
  return pdf.y - y;
}

export function rule(
  pdf: PDFKit.PDFDocument,
  y: number,
  x1 = LEFT,
  x2 = RIGHT,
  color = COLORS.rule,
  width = 0.5,
): void {
  pdf.save().moveTo(x1, y).lineTo(x2, y).lineWidth(width).strokeColor(color).stroke().restore();
}

/** Starts a new page when `height` does not fit; returns whether it did. */
export function ensureSpace(ctx: Ctx, height: number): boolean {
  if (ctx.y + height <= BOTTOM) return false;
  ctx.pdf.addPage();
  ctx.y = TOP;
  return true;
}

export function documentHeading(ctx: Ctx): string {
  const { doc, fmt } = ctx;
  return doc.number ? `${doc.title} ${doc.number}` : `${doc.title} (${fmt.labels.draft})`;
}

const regionNames = new Map<string, Intl.DisplayNames>();
function countryName(code: string, lang: string): string {
  let names = regionNames.get(lang);
  if (!names) {
    names = new Intl.DisplayNames([lang], { type: 'region' });
    regionNames.set(lang, names);
  }
  return names.of(code.toUpperCase()) ?? code;
}

function cityLine(p: PdfParty): string {
  return [p.zip, p.city].filter(Boolean).join(' ');
}

/** First page: letterhead, sender line, recipient address, information block and title. */
export function drawFirstPageHead(ctx: Ctx): void {
  const { pdf, doc, fmt } = ctx;
  const s = doc.seller;
  foldMarks(pdf);
  // A logo takes the top left (at most 60 × 16 mm); the name moves below it, above the sender line.
  let nameY = 15 * MM;
  if (ctx.logo) {
    pdf.image(ctx.logo, LEFT, 10 * MM, { fit: [60 * MM, 16 * MM] });
    nameY = 29 * MM;
  }
  put(pdf, s.name, LEFT, nameY, INFO_X - LEFT - 5 * MM, { bold: true, size: 16, color: COLORS.accent });
  const contact = [s.street, cityLine(s), s.phone, s.email].filter(Boolean).join('\n');
  put(pdf, contact, INFO_X, 15 * MM, RIGHT - INFO_X, { size: 8, color: COLORS.muted, align: 'right' });

  const senderLine = [s.name, s.street, cityLine(s)].filter(Boolean).join(' · ');
  put(pdf, senderLine, LEFT, 50 * MM, 80 * MM, { size: 7, color: COLORS.muted, underline: true });

  const b = doc.buyer;
  const abroad =
    b.country_code && s.country_code && b.country_code.toUpperCase() !== s.country_code.toUpperCase();
  let y = 56 * MM;
  y += put(pdf, b.name, LEFT, y, 80 * MM, { size: 10 });
  const rest = [
    b.attention,
    b.street,
    cityLine(b),
    abroad ? countryName(b.country_code!, fmt.lang).toUpperCase() : null,
  ].filter(Boolean);
  y += put(pdf, rest.join('\n'), LEFT, y, 80 * MM, { size: 10 });

  const infoBottom = drawInfoBlock(ctx);
  ctx.y = Math.max(98 * MM, y + 10 * MM, infoBottom + 8 * MM);
  ctx.y += put(pdf, documentHeading(ctx), LEFT, ctx.y, WIDTH, { bold: true, size: 15, color: COLORS.accent });
  ctx.y += 4 * MM;
}

function drawInfoBlock(ctx: Ctx): number {
  const { pdf, doc, fmt } = ctx;
  const l = fmt.labels;
  const numberLabel =
    ctx.numberLabel ?? (doc.kind === 'offer' ? l.offerNo : doc.kind === 'credit' ? l.creditNo : l.invoiceNo);
  const rows: [string, string][] = [[numberLabel, doc.number ?? l.draft]];
  if (doc.date) rows.push([l.date, fmt.date(doc.date)]);
  if (doc.due_date) rows.push([doc.kind === 'offer' ? l.validUntil : l.dueDate, fmt.date(doc.due_date)]);
  const start = doc.service_period_start;
  const end = doc.service_period_end;
  if (start && end && start !== end) rows.push([l.servicePeriod, `${fmt.date(start)} – ${fmt.date(end)}`]);
  else if (start || end) rows.push([l.serviceDate, fmt.date(start ?? end)]);
  else if (doc.service_date) rows.push([l.serviceDate, fmt.date(doc.service_date)]);
  if (doc.buyer_reference) rows.push([l.buyerReference, doc.buyer_reference]);
  if (doc.buyer.vat_id) rows.push([l.customerVatId, doc.buyer.vat_id]);
  for (const ref of doc.references ?? []) rows.push([ref.label, ref.value]);

  const labelWidth = 30 * MM;
  const valueX = INFO_X + labelWidth;
  let y = 50 * MM;
  for (const [label, value] of rows) {
    const h = Math.max(
      measure(pdf, label, labelWidth - 2 * MM, { size: 8.5 }),
      measure(pdf, value, RIGHT - valueX, { size: 8.5 }),
    );
    put(pdf, label, INFO_X, y, labelWidth - 2 * MM, { size: 8.5, color: COLORS.muted });
    put(pdf, value, valueX, y, RIGHT - valueX, { size: 8.5, align: 'right' });
    y += h + 1;
  }
  return y;
}

function foldMarks(pdf: PDFKit.PDFDocument): void {
  for (const [y, length] of [
    [105, 4],
    [148.5, 6],
    [210, 4],
  ] as const) {
    pdf
      .save()
      .moveTo(4 * MM, y * MM)
      .lineTo((4 + length) * MM, y * MM)
      .lineWidth(0.4)
      .strokeColor(COLORS.rule)
      .stroke()
      .restore();
  }
}

/**
 * Runs once all pages exist (pages are buffered): running header on following pages, footer
 * with bank details and "Page x of y" everywhere, the draft watermark.
 */
export function drawPageFurniture(ctx: Ctx): void {
  const { pdf, doc, fmt } = ctx;
  const range = pdf.bufferedPageRange();
  const columns = footerColumns(doc, fmt);
  const columnWidth = WIDTH / 3;
  for (let i = range.start; i < range.start + range.count; i++) {
    pdf.switchToPage(i);
    // Footer text sits below the content area; without this pdfkit would open a new page.
    pdf.page.margins.bottom = 0;
    const index = i - range.start;
    if (index > 0) {
      put(pdf, documentHeading(ctx), LEFT, 15 * MM, WIDTH * 0.6, { size: 8, color: COLORS.muted });
      put(pdf, doc.seller.name, LEFT + WIDTH * 0.6, 15 * MM, WIDTH * 0.4, {
        size: 8,
        color: COLORS.muted,
        align: 'right',
      });
      rule(pdf, 20 * MM);
    }
    const footerTop = PAGE.height - 27 * MM;
    put(pdf, fmt.labels.page(index + 1, range.count), LEFT, footerTop - 4 * MM, WIDTH, {
      size: 7.5,
      color: COLORS.muted,
      align: 'right',
    });
    rule(pdf, footerTop);
    columns.forEach((text, c) => {
      put(pdf, text, LEFT + c * columnWidth, footerTop + 2 * MM, columnWidth - 3 * MM, {
        size: 7,
        color: COLORS.muted,
      });
    });
    if (!doc.number) watermark(pdf, fmt.labels.draft.toUpperCase());
  }
}

function footerColumns(doc: PdfDocument, fmt: Formatter): string[] {
  const s = doc.seller;
  const l = fmt.labels;
  const country = s.country_code ? countryName(s.country_code, fmt.lang) : null;
  return [
    [s.name, s.street, cityLine(s), country],
    [
      s.phone,
      s.email,
      s.vat_id ? `${l.vatId} ${s.vat_id}` : null,
      s.tax_number ? `${l.taxNumber} ${s.tax_number}` : null,
    ],
    [s.bank_name, s.iban ? `IBAN ${groupIban(s.iban)}` : null, s.bic ? `BIC ${s.bic}` : null],
  ].map((lines) => lines.filter(Boolean).join('\n'));
}

function groupIban(iban: string): string {
  return iban
    .replace(/\s+/g, '')
    .toUpperCase()
    .replace(/(.{4})(?=.)/g, '$1 ');
}

function watermark(pdf: PDFKit.PDFDocument, text: string): void {
  pdf.save();
  pdf.rotate(-35, { origin: [PAGE.width / 2, PAGE.height / 2] });
  pdf.fillOpacity(0.07);
  put(pdf, text, 0, PAGE.height / 2 - 50, PAGE.width, {
    bold: true,
    size: 96,
    color: '#000000',
    align: 'center',
  });
  pdf.restore();
}
