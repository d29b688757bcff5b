import { createInflate } from 'node:zlib';

/**
 * Screens a PDF before pdf.js reads it. pdf.js offers no limit on what its decoders produce,
 * and a 100 KB stream of deflated zeros inflates to 100 MB (outside the V8 heap, where a
 * worker's `resourceLimits` do not reach). So every stream is inflated here first, counting
 * and discarding the output (memory stays at zlib's buffers whatever the stream holds), and
 * the document is refused when
 * - one stream inflates beyond `maxDecodedBytes`;
 * - an image inflates beyond the size its dictionary declares (width × height × components ×
 *   bits, plus a byte a row for a PNG predictor): pdf.js reads no more of an image than that,
 *   so more is no picture but a bomb, or a content stream in an image's clothes;
 * - all streams together pass the document's budget: `maxDecodedBytes` for the first page
 *   and three quarters of it for each further one, up to `maxPages` pages. An A4 page
 *   scanned losslessly at 300 dpi in colour decodes to 25 MiB (33 MiB with a soft mask), so
 *   a scan of many pages is read while the budget stays bounded.
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

/** Each page after the first adds this share of `maxDecodedBytes` to the document's budget. */
const PAGE_SHARE = 0.75;

/** What the streams of a document of `pages` pages may decode to in all. */
export const documentBudget = (maxDecodedBytes: number, pages: number): number =>
  maxDecodedBytes * (1 + PAGE_SHARE * (Math.max(1, pages) - 1));

export async function pdfProblem(
  pdf: Buffer,
  maxDecodedBytes: number,
  maxPages = 1,
): Promise<PdfProblem | null> {
  // Encrypted streams cannot be measured before decryption: such a file is not read at all
  // (PDF/A-3, and so every Factur-X invoice, forbids encryption anyway).
  if (pdf.includes('/Encrypt')) return 'encrypted';
  const pages = maxPages > 1 ? Math.min(await pageCount(pdf), maxPages) : 1;
  const budget = documentBudget(maxDecodedBytes, pages);
  let total = 0;
  for (const s of streams(pdf)) {
    const raw = s.end - s.start;
    const filters = filtersOf(s.dict);
    // Inflated image data is the image itself when Flate is its only filter (or, with no
    // filter named, one given indirectly); after a codec (JPEG, …) it is no longer bounded so.
    // Some slack for writers that pad the data: a bomb is still stopped within a few KB.
    const onlyFlate = filters.length === 0 || (filters.length === 1 && filters[0] === 'FlateDecode');
    const image = onlyFlate ? imageBytes(s.dict) : undefined;
    const declared = image === undefined ? undefined : image + Math.ceil(image / 8) + 4096;
    // Counting stops just past the first limit the stream can break.
    const cap = Math.min(maxDecodedBytes, budget - total, declared ?? Number.POSITIVE_INFINITY);
    // Inflation is tried whatever the dictionary says: it is cheap when the data is not
    // zlib, and a filter given as an indirect object or an odd name cannot slip past.
    const inflated = await inflatedSize(pdf.subarray(s.start), cap + 1);
    // Flate data that zlib rejects midway is counted at worst: pdf.js's decoder is more
    // lenient (it reads past a bad back-reference) and could inflate the rest.
    const measured = filters[0] === 'FlateDecode' && inflated !== 'corrupt';
    const rest = measured ? filters.slice(1) : filters;
    const growth = rest.reduce((g, f) => g * (GROWTH[f] ?? 1), 1);
    const size = Math.max(typeof inflated === 'number' ? inflated : 0, raw) * growth;
    if (size > maxDecodedBytes || (typeof inflated === 'number' && inflated > (declared ?? size)))
      return 'pdf_too_large';
    total += size;
    if (total > budget) return 'pdf_too_large';
  }
  return null;
}

interface Stream {
  /** Offset of the `stream` keyword, of its data, and of the data's end. */
  at: number;
  start: number;
  end: number;
  /** The dictionary before the keyword (from its object's `obj` on, 64 KB at most). */
  dict: string;
}

/** The streams of a PDF as pdf.js finds them, by a linear scan of the bytes. */
function* streams(pdf: Buffer): Generator<Stream> {
  let at = pdf.indexOf('stream');
  while (at !== -1) {
    const start = streamData(pdf, at);
    if (start === -1) {
      at = pdf.indexOf('stream', at + 6);
      continue;
    }
    const found = pdf.indexOf('endstream', start);
    const end = found === -1 ? pdf.length : found;
    const objAt = pdf.lastIndexOf('obj', at);
    yield { at, start, end, dict: pdf.toString('latin1', Math.max(objAt, at - 64 * 1024, 0), at) };
    at = found === -1 ? -1 : pdf.indexOf('stream', found + 9);
  }
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

/** The filter names of a stream dictionary, with `#xx` escapes and abbreviations resolved. */
function filtersOf(dict: string): string[] {
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

/** A direct integer under `key` (not an indirect reference, not `/Widths`). */
function integer(dict: string, key: string): number | undefined {
  const m = new RegExp(`/${key}(?![\\w#])\\s*(\\d{1,9})(\\s+\\d+\\s+R)?(?![\\d.])`).exec(dict);
  return m && !m[2] ? Number(m[1]) : undefined;
}

/** Colour components by colour space; one not named here (ICC, indirect) counts as CMYK's 4. */
const COMPONENTS: Record<string, number> = {
  DeviceGray: 1,
  G: 1,
  CalGray: 1,
  Indexed: 1,
  I: 1,
  Separation: 1,
  DeviceRGB: 3,
  RGB: 3,
  CalRGB: 3,
  Lab: 3,
  DeviceCMYK: 4,
  CMYK: 4,
};

/**
 * The bytes an image's Flate data inflates to by its dictionary, undefined when the stream is
 * no image or its size is not given directly. Reading more than this would be an error: a
 * false reading of the dictionary only ever lowers the stream's cap, never raises it.
 */
function imageBytes(dict: string): number | undefined {
  if (!/\/Subtype\s*\/Image(?![\w#])/.test(dict)) return undefined;
  const width = integer(dict, 'Width');
  const height = integer(dict, 'Height');
  if (!width || !height) return undefined;
  const mask = /\/ImageMask\s+true/.test(dict);
  const space = /\/ColorSpace\s*\[?\s*\/([A-Za-z]+)/.exec(dict)?.[1];
  // DeviceN names up to 32 colourants.
  const components = mask ? 1 : space === 'DeviceN' ? 32 : (COMPONENTS[space ?? ''] ?? 4);
  const bits = mask ? 1 : Math.min(integer(dict, 'BitsPerComponent') ?? 8, 16);
  // A predictor's parameters (`/DecodeParms`) may name more columns or colours than the image.
  const predictor = integer(dict, 'Predictor') ?? 1;
  const columns = Math.max(integer(dict, 'Columns') ?? 0, width);
  const colors = Math.max(integer(dict, 'Colors') ?? 0, components);
  const row = Math.ceil((columns * colors * bits) / 8);
  // PNG predictors start every row with a byte naming the row's filter.
  return height * (row + (predictor >= 10 ? 1 : 0));
}

/** Object streams are read this far for page dictionaries (they hold a few hundred objects). */
const OBJECT_STREAM_BYTES = 16 * 1024 * 1024;

/**
 * Pages of the document: `/Type /Page` dictionaries in the file and in its object streams.
 * Only a budget grows with it, and never beyond `maxPages`, so a false count costs nothing.
 */
async function pageCount(pdf: Buffer): Promise<number> {
  let pages = pageDictionaries(pdf);
  for (const s of streams(pdf)) {
    if (!/\/Type\s*\/ObjStm(?![\w#])/.test(s.dict)) continue;
    let tail = Buffer.alloc(0);
    await inflatedSize(pdf.subarray(s.start), OBJECT_STREAM_BYTES, (chunk) => {
      // A dictionary split between two chunks is found in the joint.
      const joined = Buffer.concat([tail, chunk]);
      pages += pageDictionaries(joined, tail.length);
      tail = joined.subarray(Math.max(0, joined.length - 32));
    });
  }
  return pages;
}

/** `/Type /Page` (not `/Pages`) in `bytes`, ending at or after `from`. */
function pageDictionaries(bytes: Buffer, from = 0): number {
  let n = 0;
  for (let at = bytes.indexOf('/Page'); at !== -1; at = bytes.indexOf('/Page', at + 5)) {
    if (at + 5 <= from || !delimits(bytes[at + 5])) continue;
    let k = at - 1;
    while (k >= 0 && delimits(bytes[k]) && bytes[k] !== 0x2f) k--;
    if (k >= 4 && bytes.toString('latin1', k - 4, k + 1) === '/Type') n++;
  }
  return n;
}

/**
 * Bytes a zlib stream at the start of `data` inflates to, counting no further than `limit`;
 * `corrupt` when zlib stops at bad data after a valid header (data that is not zlib at all
 * counts 0, as pdf.js checks the same header). `onData` sees the output as it comes.
 */
function inflatedSize(
  data: Buffer,
  limit: number,
  onData?: (chunk: Buffer) => void,
): Promise<number | 'corrupt'> {
  return new Promise((resolve) => {
    const inflate = createInflate();
    let size = 0;
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length;
      onData?.(chunk);
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
