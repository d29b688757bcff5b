import { inZone, type Scan } from './candidates.js';
import type { Result } from './fields.js';
import { closeSplitWords, matchLabel } from './labels.js';
import type { Line } from './lines.js';

const LEGAL_FORM =
  /(?:^|\s)(?:GmbH(?:\s?&\s?Co\.?\s?KG)?|GMBH|gGmbH|a\.\s?G\.|AG|UG(?:\s?\(haftungsbeschränkt\))?|KG|OHG|GbR|e\.\s?K\.|e\.\s?V\.|mbH|Ltd\.?|Limited|LLC|LLP|Inc\.?|PLC|plc|SARL|S\.A\.R\.L\.|SAS|SASU|SA|EURL|SE|B\.V\.|BV|N\.V\.)$/u;
const STREET =
  /^(?:[\p{L}.\- ]+(?:stra(?:ß|ss)e|str\.|weg|platz|allee|gasse|ring|damm|ufer|chaussee|markt|steig|berg|hof)\s?\d+\s?[a-z]?|[\p{L}.\- ]+\s\d+\s?[a-z]?|\d+[a-z]?,?\s[\p{L}.\- ']+(?:street|st\.|road|rd\.|avenue|ave\.?|lane|way|drive|square|place)|\d+(?:\s?bis)?,?\s(?:rue|avenue|boulevard|bd|place|chemin|impasse|all[ée]e|quai)\s[\p{L}.\- ']+)$/iu;
const POSTCODE =
  /^(?:(?:D|DE|F|FR|A|AT|CH)-?\s?)?(\d{4,5})\s+([\p{L}][\p{L}.\- ()]+?)(?:,?\s(Deutschland|Germany|France|Frankreich|Österreich|Austria|Schweiz|Switzerland|United Kingdom|UK))?$/u;
const UK_POSTCODE = /^([\p{L}][\p{L} .-]+?),?\s+([A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2})$/u;
const COUNTRY: Record<string, string> = {
  deutschland: 'DE',
  germany: 'DE',
  france: 'FR',
  frankreich: 'FR',
  österreich: 'AT',
  austria: 'AT',
  schweiz: 'CH',
  switzerland: 'CH',
  'united kingdom': 'GB',
  uk: 'GB',
};

interface Party {
  name: string;
  street?: string;
  postcode?: string;
  city?: string;
  country?: string;
  how: 'return_address' | 'letterhead' | 'footer' | 'largest';
}

/** Document titles and captions, never a company's name. */
const NOT_A_NAME =
  /^(?:\p{L}*rechnung|invoice|tax\s?invoice|facture|factuur|gutschrift|credit\s?note|avoir|creditnota|angebot|quote|offerte|lieferschein|mahnung|buchungshilfe)(?![\p{L}])/iu;

function address(parts: string[], party: Party): void {
  for (const raw of parts) {
    const p = raw.trim();
    if (!party.street && STREET.test(p) && !POSTCODE.test(p)) party.street = p;
    const pc = POSTCODE.exec(p);
    if (!party.postcode && pc) {
      party.postcode = pc[1];
      party.city = pc[2]!.trim();
      if (pc[3]) party.country = COUNTRY[pc[3].toLowerCase()];
    }
    const uk = UK_POSTCODE.exec(p);
    if (!party.postcode && uk && !pc) {
      party.postcode = uk[2];
      party.city = uk[1]!.trim();
    }
    if (!party.country && COUNTRY[p.toLowerCase()]) party.country = COUNTRY[p.toLowerCase()];
  }
}

/** "Muster GmbH · Hauptstr. 1 · 10115 Berlin" above the window address (DIN 5008). */
function returnAddress(lines: Line[]): Party | undefined {
  for (const line of lines) {
    if (line.page !== 1 || line.y > line.pageHeight * 0.4) continue;
    // Separators ("·", "|") already end segments (lines.ts); a dash does not.
    const parts = line.segments.length >= 3 ? line.segments.map((s) => s.text) : line.text.split(/\s[-–]\s/);
    if (
      parts.length < 3 ||
      !parts.slice(1).some((p) => POSTCODE.test(p.trim()) || UK_POSTCODE.test(p.trim()))
    )
      continue;
    // The sender line names the company first; a window-address line beside a label does not.
    const name = parts[0]!.trim();
    if (POSTCODE.test(name) || STREET.test(name) || parts.some((p) => matchLabel(p))) continue;
    const party: Party = { name: parts[0]!.trim(), how: 'return_address' };
    address(parts.slice(1), party);
    return party;
  }
  return undefined;
}

/** The block of lines under a company name in the same column: street, postcode and city. */
function blockBelow(lines: Line[], line: Line, x: number, party: Party): void {
  const parts: string[] = [];
  for (const next of lines.slice(line.index + 1, line.index + 5)) {
    if (next.page !== line.page || next.y - line.y > line.h * 7) break;
    const s = next.segments.find((s) => Math.abs(s.x - x) < line.h * 1.5);
    if (!s) continue;
    if (matchLabel(s.text)) break;
    parts.push(...s.text.split(/\s[·•|,]\s|,\s/));
  }
  address(parts, party);
}

function letterhead(lines: Line[], scan: Scan): Party | undefined {
  const body = [...lines.map((l) => l.h)].sort((a, b) => a - b)[Math.floor(lines.length / 2)] ?? 0;
  for (const line of lines) {
    if (line.page !== 1 || line.y > line.pageHeight * 0.3) continue;
    // A letterhead is at the very top or set larger than the text; the window address is neither.
    if (line.y > line.pageHeight * 0.1 && line.h < body * 1.15) continue;
    for (const s of line.segments) {
      if (inZone(scan.recipient, line, s) || matchLabel(s.text)) continue;
      if (!LEGAL_FORM.test(s.text.trim()) || s.text.length > 60) continue;
      const party: Party = { name: s.text.trim(), how: 'letterhead' };
      blockBelow(lines, line, s.x, party);
      return party;
    }
  }
  return undefined;
}

/**
 * The name a letterhead sets largest at the top of the first page, when it carries no legal
 * form ("ACME Hosting", "[Seller name]"): a guess, reported as one.
 */
function largest(lines: Line[], scan: Scan): Party | undefined {
  const body = [...lines.map((l) => l.h)].sort((a, b) => a - b)[Math.floor(lines.length / 2)] ?? 0;
  let best: { line: Line; text: string; x: number } | undefined;
  for (const line of lines) {
    if (line.page !== 1 || line.y > line.pageHeight * 0.15 || line.h < body * 1.3) continue;
    for (const s of line.segments) {
      const text = s.text.trim();
      if (inZone(scan.recipient, line, s) || matchLabel(text) || NOT_A_NAME.test(text)) continue;
      // A name is words: not a number, a date or an address line.
      if (text.length < 3 || text.length > 60 || !/\p{L}{2}/u.test(text) || /\d{3}/.test(text)) continue;
      if (!best || line.h > best.line.h) best = { line, text, x: s.x };
    }
  }
  if (!best) return undefined;
  const party: Party = { name: best.text, how: 'largest' };
  blockBelow(lines, best.line, best.x, party);
  return party;
}

/** The seller's caption over its block ("Verkäufer:", "Rechnungsersteller", "Seller:"). */
const SELLER =
  /^(?:verk[äa]ufer|lieferant|rechnungssteller|rechnungsersteller|seller|supplier|vendor|vendeur|fournisseur|verkoper|leverancier)\s*:?$/iu;

/**
 * The block under the seller's caption: its first line is the name. A producer whose text layer
 * splits words ("Ver käufer :") splits the name the same way ("Liefer ant GmbH").
 */
function sellerBlock(lines: Line[]): Party | undefined {
  for (const line of lines) {
    if (line.page !== 1) continue;
    for (const s of line.segments) {
      const split = !SELLER.test(s.text.trim());
      if (split && !SELLER.test(closeSplitWords(s.text.trim()).text)) continue;
      for (const next of lines.slice(line.index + 1, line.index + 4)) {
        if (next.page !== line.page || next.y - line.y > line.h * 4) break;
        const below = next.segments.find((b) => Math.abs(b.x - s.x) < line.h * 1.5);
        if (!below || matchLabel(below.text)) continue;
        const name = split ? closeSplitWords(below.text.trim()).text : below.text.trim();
        if (name.length < 3 || name.length > 60 || /\d{3}/.test(name)) break;
        const party: Party = { name, how: 'letterhead' };
        blockBelow(lines, next, below.x, party);
        return party;
      }
    }
  }
  return undefined;
}

function footer(lines: Line[], scan: Scan): Party | undefined {
  for (const line of lines) {
    if (line.y < line.pageHeight * 0.8) continue;
    for (const s of line.segments) {
      if (inZone(scan.recipient, line, s)) continue;
      const parts = s.text.split(/\s[·•|]\s/);
      const name = parts[0]!.trim();
      if (!LEGAL_FORM.test(name) || name.length > 60 || matchLabel(name)) continue;
      const party: Party = { name, how: 'footer' };
      if (parts.length > 1) address(parts.slice(1), party);
      else blockBelow(lines, line, s.x, party);
      return party;
    }
  }
  return undefined;
}

/**
 * The supplier as a reader finds it: the sender line above the address window, the
 * letterhead's company name, or the company in the footer. Where two of them agree, surer.
 */
export function supplierParty(r: Result, lines: Line[], scan: Scan): void {
  const found = [
    returnAddress(lines),
    sellerBlock(lines),
    letterhead(lines, scan),
    footer(lines, scan),
  ].filter((p): p is Party => p !== undefined);
  if (found.length === 0) {
    const guess = largest(lines, scan);
    if (guess) found.push(guess);
  }
  const first = found[0];
  if (!first) return;
  const agree = found.filter((p) => p.name.toLowerCase() === first.name.toLowerCase()).length;
  const cap = r.source === 'ocr' ? 0.75 : 1;
  const confidence = Math.min(
    cap,
    agree >= 2 ? 0.85 : first.how === 'return_address' ? 0.75 : first.how === 'largest' ? 0.5 : 0.65,
  );
  r.set('supplier_name', first.name, confidence);
  const withAddress =
    found.find((p) => p.name.toLowerCase() === first.name.toLowerCase() && p.postcode) ?? first;
  r.set('supplier_street', withAddress.street, confidence - 0.1);
  r.set('supplier_postcode', withAddress.postcode, confidence - 0.1);
  r.set('supplier_city', withAddress.city, confidence - 0.1);
  r.set('supplier_country', withAddress.country, confidence - 0.1);
}
