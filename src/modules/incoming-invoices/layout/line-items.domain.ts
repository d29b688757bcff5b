/**
 * Line items from a document's table as a layout reader sees it: rows of cells (the text runs
 * of a line split at wide gaps). A table is taken only when it can be checked: a header row
 * names quantity, price and amount columns, and in every row below it, up to the totals,
 * quantity × unit price rounded to cents is the line's amount. One row that does not add up,
 * and no line is reported: a wrong line is worse than none.
 */
import type { ExtractedFields, ExtractedLine } from '../extraction.model.js';
import type { Line } from './lines.js';

const QTY =
  /^(menge|anzahl|anz\.?|stück|stk\.?|qty\.?|quantity|quantité|qté|aantal|hoeveelheid|units?|hours?|stunden)$/i;
const PRICE =
  /^(einzelpreis|e-?preis|stückpreis|preis(\/einheit)?|ep|unit price|price|rate|unit cost|prix( unitaire)?|p\.?u\.?|prijs|stuksprijs|eenheidsprijs)$/i;
const AMOUNT =
  /^(gesamt(preis|betrag)?|betrag|summe|netto(betrag)?|gp|amount|total|line total|net amount|montant( ht)?|total ht|bedrag|totaal)$/i;
/** A row that ends the table: the totals block. */
const TOTALS =
  /^(zwischensumme|summe|gesamtsumme|nettobetrag|netto|gesamt(betrag)?|rechnungsbetrag|subtotal|sub-total|total|net total|amount due|totaal|subtotaal|sous-total|total ht|total ttc|mwst|ust|vat|tva|btw)\b/i;

/** A decimal read exactly: digits and the count of decimals ("1.234,5" → 12345, 1). */
interface Dec {
  units: bigint;
  scale: number;
}

/**
 * A number as printed in a cell: "1.234,56", "1,234.56", "12", "0,5", "2.5", "€ 12,00",
 * "12,00 EUR", "-3,00". Undefined for anything else (dates, ids, text).
 */
export function parseNumber(cell: string): Dec | undefined {
  const t = cell.replace(/(€|eur|usd|\$|£|chf|gbp)/gi, '').replace(/\s/g, '');
  if (!/^-?\d[\d.,']*$/.test(t)) return undefined;
  const neg = t.startsWith('-');
  const body = (neg ? t.slice(1) : t).replace(/'(?=\d{3})/g, ',');
  const dot = body.lastIndexOf('.');
  const comma = body.lastIndexOf(',');
  let decimalAt = -1;
  if (dot >= 0 && comma >= 0) decimalAt = Math.max(dot, comma);
  else if (dot >= 0 || comma >= 0) {
    const sep = dot >= 0 ? '.' : ',';
    const at = Math.max(dot, comma);
    const once = body.indexOf(sep) === at;
    // "1.500" and "12,500" group thousands; "0.125", "2,5" and "19.99" have decimals.
    const grouping = !once || (body.length - at - 1 === 3 && !body.startsWith('0'));
    if (!grouping) decimalAt = at;
  }
  const rawInt = decimalAt < 0 ? body : body.slice(0, decimalAt);
  // Thousands come in groups of three ("05.06.2018" is a date, not a number).
  if (/[.,]/.test(rawInt) && !/^\d{1,3}([.,]\d{3})+$/.test(rawInt)) return undefined;
  const intPart = rawInt.replace(/[.,]/g, '');
  const frac = decimalAt < 0 ? '' : body.slice(decimalAt + 1);
  if (!/^\d+$/.test(intPart) || !/^\d*$/.test(frac)) return undefined;
  const units = BigInt(`${intPart}${frac}`);
  return { units: neg ? -units : units, scale: frac.length };
}

const decimalText = (d: Dec): string => {
  const neg = d.units < 0n;
  const digits = (neg ? -d.units : d.units).toString().padStart(d.scale + 1, '0');
  const s = d.scale === 0 ? digits : `${digits.slice(0, -d.scale)}.${digits.slice(-d.scale)}`;
  return neg ? `-${s}` : s;
};

/** Cents of a decimal, rounded half away from zero. */
function cents(d: Dec): bigint {
  if (d.scale <= 2) return d.units * 10n ** BigInt(2 - d.scale);
  const div = 10n ** BigInt(d.scale - 2);
  const abs = d.units < 0n ? -d.units : d.units;
  const q = (abs + div / 2n) / div;
  return d.units < 0n ? -q : q;
}

/** quantity × unit price in cents, rounded half away from zero (as the conventions say). */
export const lineCents = (qty: Dec, price: Dec): bigint =>
  cents({ units: qty.units * price.units, scale: qty.scale + price.scale });

const isPercent = (cell: string) => /^-?\d+([.,]\d+)?\s*%$/.test(cell.trim());
const isPosition = (cell: string) => /^\d{1,3}\.?$/.test(cell.trim());
const UNIT =
  /^(stk\.?|stück|st\.?|h|std\.?|stunden?|hours?|hrs?|pcs?\.?|pieces?|x|kg|m|m2|m²|l|pauschal|psch\.?|tag(e)?|days?|months?|monat(e)?|lizenz(en)?|licen[cs]es?|units?)$/i;

export interface TableRead {
  lines?: ExtractedLine[];
  /** Why no line is reported, when a table was seen. */
  refused?: string;
}

/**
 * Reads the line items of the first table whose header names quantity, price and amount
 * columns. `rows` are the document's lines in reading order, each the texts of its cells.
 */
export function lineItemsFromRows(rows: readonly (readonly string[])[]): TableRead {
  const header = rows.findIndex((cells) => {
    const norm = cells.map((c) => c.trim().replace(/[:]$/, ''));
    return (
      norm.some((c) => QTY.test(c)) && norm.some((c) => PRICE.test(c)) && norm.some((c) => AMOUNT.test(c))
    );
  });
  if (header < 0) return {};
  const lines: ExtractedLine[] = [];
  for (const cells of rows.slice(header + 1)) {
    const first = cells[0]?.trim() ?? '';
    if (TOTALS.test(first) || (cells.length <= 3 && cells.some((c) => TOTALS.test(c.trim())))) break;
    const numeric = cells.map((c) => (isPercent(c) ? undefined : parseNumber(c)));
    const numbers = numeric.flatMap((n, i) => (n ? [{ n, i }] : []));
    // A line without amounts continues the description of the line above.
    if (numbers.length === 0) {
      const last = lines[lines.length - 1];
      const text = cells.join(' ').trim();
      if (last && text) last.description = last.description ? `${last.description} ${text}` : text;
      continue;
    }
    if (numbers.length < 3) return { refused: `row "${cells.join(' ')}" has no quantity, price and amount` };
    const [q, p, t] = numbers.slice(-3) as [
      { n: Dec; i: number },
      { n: Dec; i: number },
      { n: Dec; i: number },
    ];
    if (lineCents(q.n, p.n) !== cents(t.n))
      return {
        refused: `row "${cells.join(' ')}": ${decimalText(q.n)} × ${decimalText(p.n)} is not ${decimalText(t.n)}`,
      };
    const words = cells.filter((c, i) => {
      if (numeric[i] && (i >= q.i || (i === 0 && isPosition(c)))) return false;
      return !isPercent(c) && !(i > q.i && UNIT.test(c.trim())) && i < q.i;
    });
    const unit = cells.slice(q.i + 1, p.i).find((c) => UNIT.test(c.trim()));
    const rate = cells.find((c) => isPercent(c));
    const title = words.join(' ').trim();
    if (!title) return { refused: `row "${cells.join(' ')}" has no description` };
    lines.push({
      title,
      quantity: decimalText(q.n),
      ...(unit ? { unit: unit.trim() } : {}),
      unit_price: decimalText(p.n),
      net_total: decimalText({ units: cents(t.n), scale: 2 }),
      ...(rate ? { tax_rate: rate.replace('%', '').replace(',', '.').trim() } : {}),
    });
  }
  return lines.length ? { lines } : { refused: 'the table has no rows' };
}

/** How sure lines read so are: a text layer's digits are exact, OCR's are checked twice. */
const CONFIDENCE = { pdf_text: 0.8, ocr: 0.7 } as const;

/**
 * The line items of a page read by the layout reader (lines.ts: OCR words and a text layer's
 * alike carry boxes, so both come as rows of cells). From OCR a table must pass one check
 * more: its lines add up to the net total (or the gross, for prices with VAT) that was read.
 * OCR can misread a row's every digit into letters, and such a row would pass as the
 * description of the row above; a text layer cannot lose a row so.
 */
export function lineItemsFromLines(
  lines: readonly Line[],
  source: 'pdf_text' | 'ocr',
  totals: Pick<ExtractedFields, 'net_total' | 'gross_total'>,
): TableRead & { confidence?: number } {
  const table = lineItemsFromRows(lines.map((l) => l.segments.map((s) => s.text)));
  if (!table.lines || source === 'pdf_text') return { ...table, confidence: CONFIDENCE[source] };
  const sum = table.lines.reduce((acc, l) => acc + cents(parseNumber(l.net_total!)!), 0n);
  const read = [totals.net_total, totals.gross_total].flatMap((t) => {
    const d = t === undefined ? undefined : parseNumber(t);
    return d ? [cents(d)] : [];
  });
  if (!read.length) return { refused: 'no total was read to check the lines of a scan against' };
  if (!read.includes(sum))
    return {
      refused: `the lines add up to ${decimalText({ units: sum, scale: 2 })}, not to the total read`,
    };
  return { lines: table.lines, confidence: CONFIDENCE.ocr };
}
