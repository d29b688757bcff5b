// Hostile documents for the upload-limit test and bench: built here, byte by byte, so that
// nothing large sits in the repository.
import { deflateSync } from 'node:zlib';

export interface BombOptions {
  /** The filter as written (`/Fl#61teDecode`, `[/FlateDecode]`, …) and its key (`/F`). */
  filter?: string;
  filterKey?: string;
  /** Bytes between the dictionary and `stream`, and after `stream` up to the data. */
  beforeKeyword?: string;
  afterKeyword?: string;
  /** Changes the deflated bytes (a header only pdf.js accepts, …). */
  mangle?: (deflated: Buffer) => Buffer;
  extraTrailer?: string;
}

/**
 * A valid one-page PDF whose content stream is `mb` MB of spaces, deflated (about 1 KB per
 * MB); the options write it in the other ways pdf.js reads.
 */
export function pdfBomb(mb: number, options: BombOptions = {}): Buffer {
  const deflated = deflateSync(Buffer.alloc(mb * 1024 * 1024, 0x20), { level: 9 });
  const content = options.mangle ? options.mangle(deflated) : deflated;
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const add = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    length += buf.length;
  };
  const obj = (n: number, ...body: (Buffer | string)[]) => {
    offsets[n] = length;
    add(`${n} 0 obj\n`);
    for (const b of body) add(b);
    add('\nendobj\n');
  };
  add('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  obj(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>');
  obj(
    4,
    `<< /Length ${content.length} ${options.filterKey ?? '/Filter'} ${options.filter ?? '/FlateDecode'} >>${options.beforeKeyword ?? '\n'}stream${options.afterKeyword ?? '\n'}`,
    content,
    '\nendstream',
  );
  const xref = length;
  const rows = [1, 2, 3, 4].map((n) => `${String(offsets[n]).padStart(10, '0')} 00000 n \n`).join('');
  add(
    `xref\n0 5\n0000000000 65535 f \n${rows}trailer\n<< /Size 5 /Root 1 0 R ${options.extraTrailer ?? ''}>>\nstartxref\n${xref}\n%%EOF\n`,
  );
  return Buffer.concat(parts);
}

const CII_OPEN =
  '<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100">';

/** "Billion laughs": ten entities, each ten of the one before (10^9 `lol`s once expanded). */
export function billionLaughs(): string {
  const entities = ['<!ENTITY lol0 "lol">'];
  for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
  return `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n${entities.join('\n')}\n]>\n${CII_OPEN}<rsm:ExchangedDocument><ram:ID>&lol9;</ram:ID></rsm:ExchangedDocument></rsm:CrossIndustryInvoice>`;
}

/** A CII root with `levels` nested elements inside. */
export function deepXml(levels: number): string {
  return `<?xml version="1.0"?>${CII_OPEN}${'<a>'.repeat(levels)}${'</a>'.repeat(levels)}</rsm:CrossIndustryInvoice>`;
}

/** One element carrying about `bytes` of attributes. */
export function attributeBomb(bytes: number): string {
  const attrs = Array.from({ length: Math.ceil(bytes / 12) }, (_, i) => ` a${i}="x"`).join('');
  return `<?xml version="1.0"?>${CII_OPEN}<rsm:ExchangedDocument${attrs}/></rsm:CrossIndustryInvoice>`;
}
