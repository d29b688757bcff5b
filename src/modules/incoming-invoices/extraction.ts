import { inflateSync } from 'node:zlib';
import type { ExtractionOutcome, ExtractionWarning } from './extraction.model.js';
import { fieldsFromLayout } from './layout/fields.js';
import { pdfPageWords } from './layout/pdf-words.js';
import { pdfProblem } from './pdf-guard.js';
import { decodeXml, isInvoiceXml, looksLikeXml, readXmlInvoice } from './xml/index.js';
import type { XmlLimits } from './xml-guard.js';

export interface ExtractionLimits extends XmlLimits {
  /**
   * Bytes one stream of a PDF may decode to, and all of a one-page PDF's; each further page
   * adds three quarters of it (measured before pdf.js reads the file: pdf-guard.ts).
   */
  maxDecodedBytes: number;
  /** Pages whose text layer is read; beyond them the outcome says `pages_truncated`. */
  maxPages: number;
}

export const DEFAULT_LIMITS: ExtractionLimits = {
  maxDecodedBytes: 64 * 1024 * 1024,
  maxPages: 50,
  // EN 16931 documents with thousands of lines (and base64 attachments) stay below this.
  maxChars: 16 * 1024 * 1024,
  maxDepth: 64,
  maxAttributes: 32,
};

/** What a worker thread is sent for one document. */
export interface ExtractionJob {
  data: Uint8Array;
  contentType: string;
  limits: ExtractionLimits;
}

const warn = (code: string, message: string, field?: string): ExtractionWarning =>
  field ? { code, message, field } : { code, message };
const nothing = (...warnings: ExtractionWarning[]): ExtractionOutcome => ({
  fields: {},
  provenance: {},
  warnings,
});

const IMAGE_MAGIC: [string, number[]][] = [
  ['png', [0x89, 0x50, 0x4e, 0x47]],
  ['jpeg', [0xff, 0xd8, 0xff]],
  ['tiff', [0x49, 0x49, 0x2a, 0x00]],
  ['tiff', [0x4d, 0x4d, 0x00, 0x2a]],
];
const isImage = (data: Uint8Array) => IMAGE_MAGIC.some(([, magic]) => magic.every((b, i) => data[i] === b));
/** A PDF header may follow some bytes of junk (readers look at the first KB). */
const isPdf = (data: Buffer) => data.subarray(0, 1024).includes('%PDF-');

/**
 * Data extraction from an uploaded file, recognised by its content (never by the declared
 * type): an EN 16931 XML (UBL, CII, ZUGFeRD 1) is read exactly; a PDF by the XML it carries
 * (any attachment or associated file), else by its text layer; images and pages without text
 * are marked `needs_ocr` for the OCR job. Never throws for a bad document: the outcome's
 * warnings say what was not read. Runs in a worker thread (extraction.pool.ts).
 */
export async function extractInvoiceData(
  data: Buffer,
  _contentType: string,
  limits: ExtractionLimits = DEFAULT_LIMITS,
): Promise<ExtractionOutcome> {
  try {
    if (isPdf(data)) return await fromPdf(data, limits);
    if (isImage(data))
      return {
        ...nothing(warn('no_text_layer', 'The file is an image; its text is read by OCR')),
        needs_ocr: true,
        pages: 1,
      };
    const text = decodeXml(data);
    if (looksLikeXml(text)) return readXmlInvoice(text, limits);
    return nothing(warn('unsupported_format', 'The file is neither a PDF, an XML e-invoice nor an image'));
  } catch (err) {
    // An unreadable file is stored as it is; extraction is a convenience, not a gate.
    return nothing(warn('unreadable', `The file could not be read: ${(err as Error).message ?? err}`));
  }
}

async function fromPdf(data: Buffer, limits: ExtractionLimits): Promise<ExtractionOutcome> {
  const problem = await pdfProblem(data, limits.maxDecodedBytes, limits.maxPages);
  if (problem === 'encrypted') return nothing(warn('encrypted_pdf', 'The PDF is encrypted; it was not read'));
  if (problem)
    return nothing(
      warn(problem, 'The PDF decompresses to more than the limit for documents; it was not read'),
    );
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const pdf = await getDocument({
    data: new Uint8Array(data),
    useSystemFonts: false,
    verbosity: 0,
    isEvalSupported: false,
  }).promise;
  try {
    const embedded = await embeddedInvoice(pdf, data, limits);
    if (embedded) return embedded;
    const read = await pdfPageWords(pdf, limits.maxPages);
    const warnings: ExtractionWarning[] = [];
    if (read.numPages > limits.maxPages)
      warnings.push(
        warn('pages_truncated', `Only the first ${limits.maxPages} of ${read.numPages} pages were read`),
      );
    if (read.withoutText.length)
      warnings.push(
        warn(
          'no_text_layer',
          read.withoutText.length === read.pages.length
            ? 'The PDF has no text layer (a scan); OCR reads it'
            : `Pages ${read.withoutText.join(', ')} have no text layer; OCR reads them`,
        ),
      );
    // Read like a person: lines, cells, ranked labels and checks (layout/fields.ts).
    const { fields, provenance, warnings: readWarnings } = fieldsFromLayout(read.pages, 'pdf_text');
    return {
      fields,
      provenance,
      warnings: [...warnings, ...readWarnings],
      method: 'pdf_text',
      pages: read.numPages,
      ...(read.withoutText.length ? { needs_ocr: true } : {}),
    };
  } finally {
    await pdf.destroy();
  }
}

type PdfDoc = Awaited<ReturnType<typeof import('pdfjs-dist/legacy/build/pdf.mjs').getDocument>['promise']>;

/**
 * The EN 16931 XML a PDF carries, whatever the attachment is called (`factur-x.xml`,
 * `ZUGFeRD-invoice.xml`, `xrechnung.xml`, …): first the files of the document's name tree,
 * then every embedded-file stream (a file referenced only from the associated files `/AF`).
 */
async function embeddedInvoice(pdf: PdfDoc, data: Buffer, limits: ExtractionLimits) {
  const attachments = (await pdf.getAttachments()) as Record<string, { content: Uint8Array }> | null;
  const candidates = [
    ...Object.values(attachments ?? {}).map((f) => f.content),
    ...embeddedFileStreams(data, limits.maxChars),
  ];
  let fallback: ExtractionOutcome | undefined;
  for (const content of candidates) {
    if (content.length > limits.maxChars) continue;
    const text = decodeXml(content);
    if (!looksLikeXml(text)) continue;
    if (isInvoiceXml(text)) return readXmlInvoice(text, limits);
    // An XML attachment that is no invoice (or not well-formed) says why, unless another one is.
    fallback ??= readXmlInvoice(text, limits);
  }
  return fallback?.warnings.some((w) => w.code === 'malformed_xml') ? fallback : undefined;
}

/** The bytes of each `/Type /EmbeddedFile` stream (Flate-decoded), found by a linear scan. */
function embeddedFileStreams(pdf: Buffer, maxBytes: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = pdf.indexOf('/EmbeddedFile');
  while (at !== -1 && out.length < 16) {
    const next = pdf[at + 13];
    // `/EmbeddedFiles` is the name tree's key, not a stream's type.
    if (next !== 0x73) {
      const keyword = pdf.indexOf('stream', at);
      const dict = keyword === -1 ? '' : pdf.toString('latin1', at, keyword);
      if (keyword !== -1 && !dict.includes('endobj') && keyword - at < 8192) {
        const objStart = pdf.lastIndexOf('obj', at);
        const head = pdf.toString('latin1', Math.max(objStart, 0, at - 8192), keyword);
        let start = keyword + 6;
        if (pdf[start] === 0x0d) start++;
        if (pdf[start] === 0x0a) start++;
        const end = pdf.indexOf('endstream', start);
        const raw = pdf.subarray(start, end === -1 ? pdf.length : end);
        try {
          out.push(
            /FlateDecode|\/Fl\b/.test(head)
              ? inflateSync(raw, { maxOutputLength: maxBytes, finishFlush: 2 /* Z_SYNC_FLUSH */ })
              : raw,
          );
        } catch {
          // A stream zlib cannot read is skipped; pdf.js may have read it already.
        }
      }
    }
    at = pdf.indexOf('/EmbeddedFile', at + 13);
  }
  return out;
}
