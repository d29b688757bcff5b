import { Decimal } from 'decimal.js';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { type XmlLimits, xmlProblem } from '../xml-guard.js';

/**
 * The parsed XML tree and how the syntax readers walk it: elements by local name, text,
 * attributes, decimals and dates, each tolerant of a missing or repeated element.
 */

/** A parsed element: children by local name (namespace prefixes removed), attributes as `@name`. */
export type Node = Record<string, unknown>;

export const obj = (v: unknown): Node =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : Array.isArray(v) ? obj(v[0]) : {};
export const list = (v: unknown): Node[] =>
  (v === undefined ? [] : Array.isArray(v) ? v : [v]).map((x) =>
    typeof x === 'object' && x !== null ? (x as Node) : { '#text': x },
  );
export const str = (v: unknown): string | undefined => {
  const first = Array.isArray(v) ? v[0] : v;
  const s = typeof first === 'object' && first !== null ? (first as Node)['#text'] : first;
  if (s === undefined || s === null) return undefined;
  const t = String(s).replace(/\s+/g, ' ').trim();
  return t === '' ? undefined : t;
};
export const attr = (v: unknown, name: string): string | undefined => str(obj(v)[`@${name}`]);

/** An XML decimal ("-12.5", "+3") as a Decimal, or undefined when it is not one. */
export const decimal = (v: unknown): Decimal | undefined => {
  const s = str(v);
  return s !== undefined && /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(s) ? new Decimal(s) : undefined;
};
/** Plain decimal text without trailing zeros ("19", "5.5"). */
export const plain = (d: Decimal | undefined) => (d === undefined ? undefined : d.toFixed());

/** `YYYY-MM-DD` when the text is a real calendar date (UBL `2026-01-31`, CII 102 `20260131`). */
export function isoDate(v: unknown): string | undefined {
  const s = str(v);
  const m = s ? (/^(\d{4})-?(\d{2})-?(\d{2})(?:$|T|Z|[+-]\d)/.exec(s) ?? null) : null;
  if (!m) return undefined;
  const iso = `${m[1]}-${m[2]}-${m[3]}`;
  const t = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(t.getTime()) && t.toISOString().startsWith(iso) ? iso : undefined;
}

export class MalformedXml extends Error {}
export class XmlLimitHit extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

/**
 * Parses an XML text after the guard's linear pre-scan (DOCTYPE, depth, attribute caps) and a
 * well-formedness check: a truncated file is `malformed_xml`, never a half-read document.
 */
export function parseXml(xml: string, limits: XmlLimits): Node {
  const problem = xmlProblem(xml, limits);
  if (problem) throw new XmlLimitHit(problem);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new MalformedXml(`${valid.err.msg} (line ${valid.err.line})`);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    // Only the five predefined entities (`&amp;` …) and character references: a DOCTYPE,
    // the one place new entities could be declared, never gets here (xmlProblem).
    processEntities: true,
    htmlEntities: false,
    maxNestedTags: limits.maxDepth,
  });
  return obj(parser.parse(xml));
}
