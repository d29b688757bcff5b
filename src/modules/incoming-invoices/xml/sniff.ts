/**
 * Which EN 16931 syntax an XML text is, by its root element and that element's namespace —
 * never by a declared content type or file name. A Peppol envelope
 * (StandardBusinessDocument) is looked into for the invoice it carries.
 */
export type XmlSyntax = 'ubl-invoice' | 'ubl-credit-note' | 'cii' | 'zugferd1';

export const NAMESPACES: Record<XmlSyntax, { root: string; ns: string }> = {
  'ubl-invoice': { root: 'Invoice', ns: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2' },
  'ubl-credit-note': { root: 'CreditNote', ns: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2' },
  cii: { root: 'CrossIndustryInvoice', ns: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100' },
  zugferd1: { root: 'CrossIndustryDocument', ns: 'urn:ferd:CrossIndustryDocument:invoice:1p0' },
};

const START_TAG =
  /<([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)((?:\s+[^\s=>/]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/g;

interface Tag {
  prefix: string;
  local: string;
  xmlns: Map<string, string>;
  /** Offset just after the tag. */
  end: number;
}

function tagAt(xml: string, from: number): Tag | undefined {
  START_TAG.lastIndex = from;
  const m = START_TAG.exec(xml);
  if (!m) return undefined;
  const [prefix, local] = m[1]!.includes(':') ? m[1]!.split(':') : ['', m[1]!];
  const xmlns = new Map<string, string>();
  for (const a of m[2]!.matchAll(/xmlns(?::([\w.-]+))?\s*=\s*(?:"([^"]*)"|'([^']*)')/g))
    xmlns.set(a[1] ?? '', (a[2] ?? a[3] ?? '').trim());
  return { prefix: prefix!, local: local!, xmlns, end: START_TAG.lastIndex };
}

/** The first element's start tag, after the prolog, comments and processing instructions. */
function rootTag(xml: string): Tag | undefined {
  let i = 0;
  for (;;) {
    i = xml.indexOf('<', i);
    if (i === -1) return undefined;
    if (xml.startsWith('<?', i)) i = xml.indexOf('?>', i) + 2;
    else if (xml.startsWith('<!--', i)) i = xml.indexOf('-->', i) + 3;
    else if (xml[i + 1] === '!') i = xml.indexOf('>', i) + 1;
    else {
      const tag = tagAt(xml, i);
      return tag && xml.lastIndexOf('<', tag.end - 1) === i ? tag : undefined;
    }
    if (i <= 1) return undefined;
  }
}

const syntaxOf = (tag: Tag, inherited: Map<string, string>): XmlSyntax | undefined => {
  const ns = tag.xmlns.get(tag.prefix) ?? inherited.get(tag.prefix);
  return (Object.keys(NAMESPACES) as XmlSyntax[]).find(
    (s) => NAMESPACES[s].root === tag.local && NAMESPACES[s].ns === ns,
  );
};

export interface Sniffed {
  syntax?: XmlSyntax;
  /** Local name of the root element (for the warning on a document that is no invoice). */
  root?: string;
  /** The element path to the invoice inside an envelope, e.g. ['StandardBusinessDocument']. */
  envelope?: string;
}

export function sniffXml(xml: string): Sniffed {
  const root = rootTag(xml);
  if (!root) return {};
  const direct = syntaxOf(root, new Map());
  if (direct) return { syntax: direct, root: root.local };
  if (root.local === 'StandardBusinessDocument') {
    for (const m of xml.matchAll(/<(?:[\w.-]+:)?(?:Invoice|CreditNote)[\s>]/g)) {
      const inner = tagAt(xml, m.index);
      const syntax = inner && syntaxOf(inner, root.xmlns);
      if (syntax) return { syntax, root: root.local, envelope: 'StandardBusinessDocument' };
    }
  }
  return { root: root.local };
}

/** Whether a text looks like XML at all (after a byte-order mark and white space). */
export const looksLikeXml = (text: string) => /^\uFEFF?\s*</.test(text.slice(0, 1024));
