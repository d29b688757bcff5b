import { isValidIban } from '../../../shared/identifiers.js';
import { COLUMN_WORDS, type LabelMatch, matchLabel, type Target } from './labels.js';
import type { Line, Segment } from './lines.js';
import { compactId, isKnownVatId, type ReadValue, readValue, runsOn } from './read.js';
import { findAmounts, findRate, type Lang, wholeAmount } from './values.js';

/** A value found for a target, and how it was found. */
export interface Candidate extends ReadValue {
  target: Target;
  /** The label's rank, less where the value sat less plainly next to it. */
  rank: number;
  how: 'inline' | 'right' | 'below' | 'scan';
  line: number;
  page: number;
  /** OCR confidence of the words (1 for a text layer). */
  ocr: number;
  /** For a VAT breakdown row: the rate and the net it applies to. */
  rate?: string;
  base?: string;
}

/** A rectangle of a page where the buyer's address stands: names and ids there are not ours. */
export interface Zone {
  page: number;
  top: number;
  bottom: number;
  left: number;
  right: number;
}

export interface Scan {
  candidates: Candidate[];
  recipient: Zone[];
  /** Segments whose text was used as a label or a value. */
  used: Set<Segment>;
  /** Line indexes of line-item tables (header and rows). */
  tableLines: Set<number>;
}

const overlaps = (a: Segment, b: Segment, slack: number): boolean =>
  Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > -slack;

export const inZone = (zones: Zone[], line: Line, s: Segment): boolean =>
  zones.some(
    (z) =>
      z.page === line.page && line.y >= z.top && line.y <= z.bottom && s.x >= z.left - 5 && s.x <= z.right,
  );

/** A segment that is only a colon or other marks, or for OCR a single character standing alone. */
const isColon = (s: Segment): boolean =>
  /^[:;.,»«'"|~=_-]+$/.test(s.text) || (s.confidence < 1 && s.text.length === 1);

function isTableHeader(line: Line): boolean {
  const columnWord = (s: Segment) =>
    COLUMN_WORDS.test(s.text.trim()) || s.text.split(/\s+/).some((w) => COLUMN_WORDS.test(w));
  return line.segments.filter(columnWord).length >= 2;
}

/** How many amount labels a line carries: two or more make it the header of a totals table. */
const amountLabels = (line: Line): number =>
  line.segments.filter((s) => matchLabel(s.text)?.label.kind === 'amount').length;

/**
 * A totals table with a row per VAT rate under its column headers ("Nettobetrag | MwSt-Betrag
 * | Endbetrag") ends with the sum row: the last of the rows right under each other that have
 * an amount in the label's column.
 */
function lastRowBelow(lines: Line[], first: Line, label: Segment): Segment | undefined {
  let found: Segment | undefined;
  let prev = first;
  for (const next of lines.slice(first.index, first.index + 8)) {
    // The sum row may stand a little apart (a rule above it), and OCR may see a speck between.
    if (next.page !== first.page || next.y - prev.y > first.h * 3) break;
    const cell = next.segments.find((b) => overlaps(b, label, first.h * 0.5) && wholeAmount(b.text));
    if (!cell) {
      if (next.segments.some((b) => matchLabel(b.text))) break;
      continue;
    }
    found = cell;
    prev = next;
  }
  return found;
}

/**
 * A caption broken inside a narrow cell ("Gesamtbet" over "rag": a right-aligned cell too
 * narrow for the word wraps it mid-word): the segment and the fragment right under it, inside
 * its width, read together as one label.
 */
function wrappedLabel(lines: Line[], line: Line, s: Segment): { m: LabelMatch; tail: Segment } | undefined {
  if (!/^\p{L}{3,}$/u.test(s.text)) return undefined;
  const next = lines[line.index + 1];
  if (!next || next.page !== line.page || next.y - line.y > line.h * 2) return undefined;
  const tail = next.segments.find(
    (b) =>
      b.x >= s.x - line.h * 0.5 && b.x + b.w <= s.x + s.w + line.h * 0.5 && /^\p{Ll}{1,12}$/u.test(b.text),
  );
  if (!tail) return undefined;
  const m = matchLabel(s.text + tail.text);
  return m && m.rest === '' ? { m, tail } : undefined;
}

/**
 * Reads every labelled value of the document: for each label, the value in the same cell,
 * to its right on the same line, or in the cell below it. Line-item tables are skipped: a
 * "Gesamtbetrag" column header says nothing about the document's total.
 */
export function scanLabels(lines: Line[], lang: Lang): Scan {
  const candidates: Candidate[] = [];
  const recipient: Zone[] = [];
  const used = new Set<Segment>();
  const tableLines = new Set<number>();

  let inTable = false;
  for (const line of lines) {
    if (isTableHeader(line)) {
      inTable = true;
      tableLines.add(line.index);
      continue;
    }
    if (inTable) {
      const prev = lines[line.index - 1];
      const first = line.segments[0];
      if (prev && prev.page === line.page && line.segments.length >= 3 && first && !matchLabel(first.text)) {
        tableLines.add(line.index);
        continue;
      }
      inTable = false;
    }
  }

  const push = (
    line: Line,
    s: Segment,
    m: LabelMatch,
    v: ReadValue | undefined,
    how: Candidate['how'],
    from: Segment,
  ) => {
    if (!v) return false;
    // A VAT id in the buyer's address block ("Kunde: … USt-IdNr. DE…") is the buyer's.
    if (m.label.target === 'supplier_vat_id' && inZone(recipient, line, s)) {
      used.add(from);
      return true;
    }
    const rankCut = how === 'below' ? 1 : 0;
    const c: Candidate = {
      ...v,
      target: m.label.target,
      rank: m.label.rank - rankCut,
      how,
      line: line.index,
      page: line.page,
      ocr: Math.min(s.confidence, from.confidence),
    };
    if (m.label.target === 'tax_total') {
      // "19 % MwSt auf 1.000,00: 190,00", "MwSt 19 % 190,00", "VAT 20% on 1,000.00 200.00"
      const text = line.text.slice(line.text.indexOf(s.text));
      const rate = findRate(text);
      const amounts = findAmounts(text.replace(/\d{1,2}(?:[.,]\d{1,2})?\s?%/, ''));
      if (rate !== undefined) c.rate = rate;
      if (amounts.length >= 2) c.base = amounts[amounts.length - 2]!.value;
    }
    candidates.push(c);
    used.add(from);
    return true;
  };

  // "Rechnung Nr. RE-1 vom 06.12.2026", "Invoice INV-1 dated 6 May 2026": the number's date.
  const datedNumber = (line: Line, s: Segment, rest: string) => {
    const m = /^\S+\s+(?:vom|von|v\.|dated|of|from|du|van|en\s?date\s?du)\s+(.+)$/iu.exec(rest);
    const v = m ? readValue('date', m[1]!, lang) : undefined;
    if (v)
      candidates.push({
        ...v,
        target: 'date',
        rank: 8,
        how: 'inline',
        line: line.index,
        page: line.page,
        ocr: s.confidence,
      });
  };

  for (const line of lines) {
    const inTableLine = tableLines.has(line.index);
    line.segments.forEach((s, i) => {
      // A rate before or inside the label ("19 % MwSt auf 1.000,00", "zzgl. 19 % USt") reads as a tax label.
      const wrapped = matchLabel(s.text) ? undefined : wrappedLabel(lines, line, s);
      const m =
        matchLabel(s.text) ??
        matchLabel(s.text.replace(/(?<![\d.,])\d{1,2}(?:[.,]\d{1,2})?\s?%\s*/, '')) ??
        wrapped?.m;
      if (!m) return;
      if (wrapped && m === wrapped.m) used.add(wrapped.tail);
      const { kind, target } = m.label;
      // In a line-item table a "Gesamtbetrag" column or an "Anzahlung" item is no total, and a
      // "Datum" column no invoice date; a label beside the table (a sidebar) still counts.
      if (inTableLine && (kind === 'amount' || kind === 'none' || (target === 'date' && m.label.rank < 10)))
        return;
      used.add(s);
      if (target === 'recipient') {
        recipient.push({
          page: line.page,
          top: line.y,
          bottom: line.y + line.h * 7,
          left: s.x,
          right: s.x + Math.max(s.w, line.pageWidth * 0.4),
        });
        return;
      }
      if (kind === 'none') {
        // The value of a label that is not ours ("Ihre USt-IdNr.", "Kundennummer") is taken.
        const next = line.segments[i + 1];
        if (!m.rest && next && !matchLabel(next.text)) used.add(next);
        return;
      }
      if (target === 'invoice_number' && m.rest) datedNumber(line, s, m.rest);
      if (kind !== 'amount' && m.rest && push(line, s, m, readValue(kind, m.rest, lang), 'inline', s)) return;
      // To the right: for amounts the rest of the line up to the next label (a rate column may
      // stand between); otherwise the next cell.
      const right: Segment[] = [];
      const after = line.segments.slice(i + 1);
      for (const [k, r] of after.entries()) {
        if (matchLabel(r.text)) break;
        // A colon set apart ("Beleg-Nr | : | RK21012345"), or what OCR made of one ("3", "»").
        if (kind !== 'amount' && after[k + 1] && isColon(r)) continue;
        right.push(r);
        if (kind !== 'amount') break;
      }
      if (kind === 'amount' && m.rest && right.length === 0)
        if (push(line, s, m, readValue(kind, m.rest, lang), 'inline', s)) return;
      if (right.length) {
        // "MwSt 19 % auf 1.000,00 | 190,00": the amount the row ends with.
        const text = [kind === 'amount' ? m.rest : '', ...right.map((r) => r.text)].join(' ');
        // "INVOICE No. | 123456XX of Apr 4, 2016": OCR set the number apart from its label.
        if (target === 'invoice_number' && !m.rest) datedNumber(line, s, text.trim());
        // Not a value of its kind ("Datum | Leverdatum" in a row of captions): look below.
        if (push(line, s, m, readValue(kind, text, lang), 'right', right[right.length - 1]!)) return;
        // OCR set a written-out date apart in cells ("June 16 | 2016"): the cells up to the next label.
        if (kind === 'date') {
          const cells: Segment[] = [];
          for (const r of after) {
            if (matchLabel(r.text) || cells.length === 3) break;
            cells.push(r);
          }
          const joined = cells.map((r) => r.text).join(' ');
          if (
            cells.length > 1 &&
            push(line, s, m, readValue(kind, joined, lang), 'right', cells[cells.length - 1]!)
          )
            return;
        }
      }
      // Below: the cell under the label in the next lines of the same column.
      for (const next of lines.slice(line.index + 1, line.index + 4)) {
        if (next.page !== line.page || next.y - line.y > line.h * 5) break;
        const below = next.segments.find((b) => overlaps(b, s, line.h * 0.5));
        if (!below) continue;
        if (matchLabel(below.text)) break;
        const last = kind === 'amount' && amountLabels(line) >= 2 ? lastRowBelow(lines, next, s) : undefined;
        if (push(line, s, m, readValue(kind, (last ?? below).text, lang), 'below', last ?? below)) return;
        // OCR split a date under its caption ("30 | juin 2016"): the cells under the caption together.
        const under = next.segments.filter((b) => b.x >= below.x && b.x < s.x + s.w && !matchLabel(b.text));
        if (kind === 'date' && under.length > 1) {
          const joined = under.map((b) => b.text).join(' ');
          if (push(line, s, m, readValue(kind, joined, lang), 'below', under[under.length - 1]!)) return;
        }
        break;
      }
      // Above: a caption printed under its value ("R-1234" over "Invoice number"), only for
      // identifiers and dates in a row of captions, ranked below every other place.
      if (kind !== 'id' && kind !== 'date') return;
      const prev = lines[line.index - 1];
      // OCR boxes are the ink of small captions: a row of values set larger stands further up.
      if (!prev || prev.page !== line.page || line.y - prev.y > line.h * 2.5) return;
      const captions = line.segments.filter((c) => matchLabel(c.text)).length;
      if (captions < 2) return;
      const above = prev.segments.filter((a) => overlaps(a, s, line.h * 0.5));
      // OCR may set a date over its caption apart in cells ("18 | janvier 2016"): a date reads them together.
      if (above.length === 0 || (above.length > 1 && kind !== 'date')) return;
      if (above.some((a) => matchLabel(a.text) || used.has(a))) return;
      const v = readValue(kind, above.map((a) => a.text).join(' '), lang);
      if (v && push(line, s, m, v, 'below', above[above.length - 1]!))
        candidates[candidates.length - 1]!.rank -= 1;
    });
  }

  // Identifiers that carry their own check are also found without a label; the buyer's are
  // left out by where they stand (address block, "Ihre USt-IdNr." labels are marked used).
  for (const line of lines) {
    for (const s of line.segments) {
      if (inZone(recipient, line, s) || used.has(s)) continue;
      const label = matchLabel(s.text);
      if (label && label.label.target === 'other') continue;
      const words = s.text.split(/\s+/);
      for (let k = 0; k < words.length; k++) {
        if (!/^[A-Z]{2}/i.test(words[k]!)) continue;
        const tail = words.slice(k, k + 9).join(' ');
        const compact = compactId(tail);
        for (let n = Math.min(34, compact.length); n >= 8; n--) {
          const piece = compact.slice(0, n);
          const target: Target | undefined =
            n >= 15 && isValidIban(piece)
              ? 'iban'
              : isKnownVatId(piece) && !runsOn(tail, piece)
                ? 'supplier_vat_id'
                : undefined;
          if (!target) continue;
          candidates.push({
            target,
            value: piece,
            sure: true,
            rank: 5,
            how: 'scan',
            line: line.index,
            page: line.page,
            ocr: s.confidence,
          });
          break;
        }
      }
    }
  }
  return { candidates, recipient, used, tableLines };
}
