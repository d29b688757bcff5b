import { createInflate } from 'node:zlib';

/**
 * Screens a PDF before pdf.js reads it. pdf.js offers no limit on what its decoders produce,
 * and a 100 KB stream of deflated zeros inflates to 100 MB (outside the V8 heap, where a
 * worker's `resourceLimits` do not reach). So every stream is inflated here first, counting
 * and discarding the output, and the document is refused once the sum passes the budget.
 */
export type PdfProblem = 'encrypted' | 'pdf_too_large';

/**
 * Worst-case growth of the decoders pdf.js has besides a leading Flate (which is measured):
 * Flate after another filter (zlib's ratio bound), LZW (12-bit codes of up to 4 KB), RunLength
 * (one byte repeated 128 times), ASCII85 (`z` is four bytes). Image codecs are not decoded when
 * text is read and count as their raw size.
 */
const GROWTH: Record<string, number> = {
  FlateDecode: 1032,
  LZWDecode: 4096,
  RunLengthDecode: 128,
  ASCII85Decode: 4,
};
const ABBREVIATIONS: Record<string, string> = {
  Fl: 'FlateDecode',
  LZW: 'LZWDecode',
  RL: 'RunLengthDecode',
  A85: 'ASCII85Decode',
  AHx: 'ASCIIHexDecode',
};

export async function pdfProblem(pdf: Buffer, maxDecodedBytes: number): Promise<PdfProblem | null> {
  // Encrypted streams cannot be measured before decryption: such a file is not read at all
  // (PDF/A-3, and so every Factur-X invoice, forbids encryption anyway).
  if (pdf.includes('/Encrypt')) return 'encrypted';
  let total = 0;
  let at = pdf.indexOf('stream');
  while (at !== -1) {
    const start = streamData(pdf, at);
    if (start !== -1) {
      const end = pdf.indexOf('endstream', start);
      const raw = (end === -1 ? pdf.length : end) - start;
      const filters = filtersOf(pdf, at);
      // Inflation is tried whatever the dictionary says: it is cheap when the data is not
      // zlib, and a filter given as an indirect object or an odd name cannot slip past.
      const inflated = await inflatedSize(pdf.subarray(start), maxDecodedBytes - total + 1);
      // Flate data that zlib rejects midway is counted at worst: pdf.js's decoder is more
      // lenient (it reads past a bad back-reference) and could inflate the rest.
      const measured = filters[0] === 'FlateDecode' && inflated !== 'corrupt';
      const rest = measured ? filters.slice(1) : filters;
      const growth = rest.reduce((g, f) => g * (GROWTH[f] ?? 1), 1);
      total += Math.max(typeof inflated === 'number' ? inflated : 0, raw) * growth;
      if (total > maxDecodedBytes) return 'pdf_too_large';
      at = end === -1 ? -1 : pdf.indexOf('stream', end + 9);
    } else {
      at = pdf.indexOf('stream', at + 6);
    }
  }
  return null;
}

/** White space and delimiters end a PDF token (the bytes of ` \t\n\f\r\0()<>[]{}/%`). */
const DELIMITERS = new Set([
  0x20, 0x09, 0x0a, 0x0c, 0x0d, 0x00, 0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25,
]);
const delimits = (b: number | undefined) => b === undefined || DELIMITERS.has(b);

/**
 * Offset of the data of the stream whose `stream` keyword is at `at`, or -1 when those bytes
 * are not the keyword (`endstream`, or part of a longer word). Anything else that looks like
 * the keyword is taken for one: counting a false stream only costs budget, missing a real one
 * would let it through.
 */
function streamData(pdf: Buffer, at: number): number {
  if (!delimits(pdf[at - 1]) || !delimits(pdf[at + 6])) return -1;
  // As pdf.js does: the data starts after the end of the keyword's line.
  let start = at + 6;
  while (start < pdf.length && pdf[start] !== 0x0a && pdf[start] !== 0x0d) start++;
  if (pdf[start] === 0x0d) start++;
  if (pdf[start] === 0x0a) start++;
  return start;
}

/** The filter names of the stream dictionary before `at`, with `#xx` escapes and abbreviations resolved. */
function filtersOf(pdf: Buffer, at: number): string[] {
  const objAt = pdf.lastIndexOf('obj', at);
  const dict = pdf.toString('latin1', Math.max(objAt, at - 64 * 1024, 0), at);
  // pdf.js takes `/F` for `/Filter` too.
  const m = /\/(?:Filter|F)\s*(\[[^\]]*\]|\/[^\s/[\]<>()]+)/.exec(dict);
  if (!m) return [];
  return [...m[1]!.matchAll(/\/([^\s/[\]<>()]+)/g)].map(([, name]) => {
    const plain = name!.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) =>
      String.fromCharCode(parseInt(hex, 16)),
    );
    return ABBREVIATIONS[plain] ?? plain;
  });
}

/**
 * Bytes a zlib stream at the start of `data` inflates to, counting no further than `limit`;
 * `corrupt` when zlib stops at bad data after a valid header (data that is not zlib at all
 * counts 0, as pdf.js checks the same header).
 */
function inflatedSize(data: Buffer, limit: number): Promise<number | 'corrupt'> {
  return new Promise((resolve) => {
    const inflate = createInflate();
    let size = 0;
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size >= limit) {
        inflate.destroy();
        resolve(size);
      }
    });
    // The end of the deflate data ends the count: what follows is the rest of the file.
    inflate.on('end', () => resolve(size));
    inflate.on('error', (err) =>
      // pdf.js refuses these headers as zlib does; it does not check the window size, though.
      resolve(/header check|compression method|dictionary/i.test(err.message) ? 0 : 'corrupt'),
    );
    inflate.on('close', () => resolve(size));
    inflate.end(data);
  });
}
