import type { ExtractionOutcome } from '../extraction.model.js';
import type { XmlLimits } from '../xml-guard.js';
import { readCii, readZugferd1 } from './cii.js';
import { NAMESPACES, sniffXml, type XmlSyntax } from './sniff.js';
import { MalformedXml, type Node, obj, parseXml, XmlLimitHit } from './tree.js';
import { readUbl } from './ubl.js';

export { looksLikeXml, sniffXml } from './sniff.js';

const empty = (code: string, message: string): ExtractionOutcome => ({
  fields: {},
  provenance: {},
  warnings: [{ code, message }],
});

/** Bytes of an XML file as text: UTF-8 (with or without BOM) or UTF-16 with its BOM. */
export function decodeXml(data: Uint8Array): string {
  if (data[0] === 0xff && data[1] === 0xfe) return new TextDecoder('utf-16le').decode(data.subarray(2));
  if (data[0] === 0xfe && data[1] === 0xff) return new TextDecoder('utf-16be').decode(data.subarray(2));
  return new TextDecoder('utf-8').decode(data).replace(/^\uFEFF/, '');
}

/** Whether an XML text is an EN 16931 invoice or credit note in a syntax read here. */
export const isInvoiceXml = (xml: string) => sniffXml(xml).syntax !== undefined;

const LIMIT_MESSAGES: Record<string, string> = {
  xml_doctype: 'The XML declares a DOCTYPE or entities, which an e-invoice never needs; it was not read',
  xml_too_large: 'The XML is larger than the limit for documents; it was not read',
  xml_too_deep: 'The XML nests elements deeper than the limit; it was not read',
  xml_attributes: 'An element of the XML has more attributes than the limit; it was not read',
};

/**
 * Reads an EN 16931 e-invoice in any of its XML syntaxes, recognised by root element and
 * namespace. Never throws for a bad document: a file that is not an invoice, not well-formed
 * or beyond the limits gives an outcome with no fields and a warning saying why.
 */
export function readXmlInvoice(xml: string, limits: XmlLimits): ExtractionOutcome {
  const sniffed = sniffXml(xml);
  let tree: Node;
  try {
    tree = parseXml(xml, limits);
  } catch (err) {
    if (err instanceof XmlLimitHit) return empty(err.code, LIMIT_MESSAGES[err.code] ?? err.code);
    if (err instanceof MalformedXml)
      return empty('malformed_xml', `The XML is not well-formed: ${err.message}`);
    throw err;
  }
  if (!sniffed.syntax)
    return empty(
      'not_an_invoice',
      sniffed.root
        ? `The XML is a <${sniffed.root}>, not an EN 16931 invoice or credit note (UBL 2.1, CII, ZUGFeRD 1.0)`
        : 'The file holds no XML element',
    );
  const holder = sniffed.envelope ? obj(tree[sniffed.envelope]) : tree;
  const root = obj(holder[NAMESPACES[sniffed.syntax].root]);
  return read(sniffed.syntax, root);
}

function read(syntax: XmlSyntax, root: Node): ExtractionOutcome {
  switch (syntax) {
    case 'ubl-invoice':
      return readUbl(root, false);
    case 'ubl-credit-note':
      return readUbl(root, true);
    case 'cii':
      return readCii(root);
    case 'zugferd1':
      return readZugferd1(root);
  }
}
