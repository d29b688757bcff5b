/**
 * A linear pre-scan of an uploaded XML document before the parser sees it. An e-invoice
 * never needs a DOCTYPE, deep nesting or long attribute lists, while an XML bomb needs one
 * of them: entity expansion ("billion laughs"), 100,000 nested elements (recursion in the
 * parser's tree building), megabytes of attributes. Refusing them here costs one pass over
 * the text and no allocation.
 */
export interface XmlLimits {
  /** Characters of the document. */
  maxChars: number;
  /** Elements open at once. */
  maxDepth: number;
  /** Attributes (and namespace declarations) on one element. */
  maxAttributes: number;
}

export type XmlProblem = 'xml_too_large' | 'xml_doctype' | 'xml_too_deep' | 'xml_attributes';

/** Longest start tag, attributes included: CII tags are short, a hostile one is megabytes. */
const MAX_TAG_CHARS = 16 * 1024;

/** The first limit the document breaks, or null. */
export function xmlProblem(xml: string, limits: XmlLimits): XmlProblem | null {
  if (xml.length > limits.maxChars) return 'xml_too_large';
  let depth = 0;
  let i = xml.indexOf('<');
  while (i !== -1) {
    const next = xml[i + 1];
    if (next === '?') i = after(xml, '?>', i + 2);
    else if (xml.startsWith('<!--', i)) i = after(xml, '-->', i + 4);
    else if (xml.startsWith('<![CDATA[', i)) i = after(xml, ']]>', i + 9);
    // <!DOCTYPE, <!ENTITY and the like: declarations are where entity bombs live.
    else if (next === '!') return 'xml_doctype';
    else if (next === '/') {
      depth--;
      i = after(xml, '>', i + 2);
    } else {
      const tag = startTag(xml, i);
      if (tag.attributes > limits.maxAttributes || tag.end - i > MAX_TAG_CHARS) return 'xml_attributes';
      if (!tag.selfClosing && ++depth > limits.maxDepth) return 'xml_too_deep';
      i = tag.end;
    }
    if (i === -1) break;
    i = xml.indexOf('<', i);
  }
  return null;
}

const after = (xml: string, token: string, from: number) => {
  const at = xml.indexOf(token, from);
  return at === -1 ? -1 : at + token.length;
};

/** Reads a start tag from `<` to its `>` (quotes may hold `>`), counting quoted values. */
function startTag(xml: string, at: number) {
  let attributes = 0;
  let quote = '';
  let j = at + 1;
  for (; j < xml.length && j - at <= MAX_TAG_CHARS; j++) {
    const ch = xml[j];
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      attributes++;
    } else if (ch === '>') break;
  }
  return { attributes, selfClosing: xml[j - 1] === '/', end: j + 1 };
}
