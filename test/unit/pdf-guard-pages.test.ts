import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { constants, deflateRawSync, deflateSync } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import { imagesToPdf } from '../../eval/scans.js';
import { DEFAULT_LIMITS, extractInvoiceData } from '../../src/modules/incoming-invoices/extraction.js';
import { documentBudget, pdfProblem } from '../../src/modules/incoming-invoices/pdf-guard.js';

const MB = 1024 * 1024;
const BUDGET = DEFAULT_LIMITS.maxDecodedBytes;

/** A PDF of the given objects (numbered from 1, the first the catalog), with a valid xref. */
function pdfOf(objects: (string | Buffer)[][]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    for (const b of [`${i + 1} 0 obj\n`, ...body, '\nendobj\n']) {
      const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
      parts.push(buf);
      length += buf.length;
    }
  });
  const rows = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${rows}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(parts);
}

const stream = (dict: string, data: Buffer) => [
  `<< ${dict} /Length ${data.length} >>\nstream\n`,
  data,
  '\nendstream',
];

/**
 * `mb` MiB of zeros as one zlib stream, built in milliseconds: a MiB deflated once and ended
 * on a byte boundary (a full flush), repeated, then an empty final block and the checksum.
 */
function deflatedZeros(mb: number): Buffer {
  const block = deflateRawSync(Buffer.alloc(MB), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const adler = Buffer.alloc(4);
  // Adler-32 of zeros: the low sum stays 1, the high one counts the bytes.
  adler.writeUInt16BE((mb * MB) % 65521, 0);
  adler.writeUInt16BE(1, 2);
  return Buffer.concat([
    Buffer.from([0x78, 0xda]),
    ...Array<Buffer>(mb).fill(block),
    Buffer.from([3, 0]),
    adler,
  ]);
}

/** One page showing image 4, whose dictionary is `imageDict` and whose data is `data`. */
function imagePdf(imageDict: string, data: Buffer): Buffer {
  const content = Buffer.from('q 100 0 0 100 0 0 cm /Im0 Do Q');
  return pdfOf([
    ['<< /Type /Catalog /Pages 2 0 R >>'],
    ['<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
    [
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R /Resources << /XObject << /Im0 4 0 R >> >> >>',
    ],
    stream(`/Type /XObject /Subtype /Image ${imageDict}`, data),
    stream('', content),
  ]);
}

/** `pages` pages, each with a content stream of `mb` MiB of spaces, deflated. */
function pagesPdf(pages: number, mb: number, { inObjectStream = false } = {}): Buffer {
  const content = deflateSync(Buffer.alloc(Math.round(mb * MB), 0x20));
  const kids = Array.from({ length: pages }, (_, i) => `${3 + 2 * i} 0 R`).join(' ');
  const objects: (string | Buffer)[][] = [['<< /Type /Catalog /Pages 2 0 R >>'], []];
  const pageDicts: string[] = [];
  for (let i = 0; i < pages; i++) {
    pageDicts.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents ${4 + 2 * i} 0 R >>`);
    objects.push(inObjectStream ? ['null'] : [pageDicts[i]!], stream('/Filter /FlateDecode', content));
  }
  objects[1] = [`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`];
  if (inObjectStream) {
    // The page dictionaries compressed in an object stream, as PDF 1.5 writers do.
    const body = pageDicts.join('\n');
    const index = pageDicts
      .map((_, i) => `${3 + 2 * i} ${pageDicts.slice(0, i).join('\n').length + (i ? 1 : 0)}`)
      .join(' ');
    const data = deflateSync(`${index}\n${body}`);
    objects.push(stream(`/Type /ObjStm /N ${pages} /First ${index.length + 1} /Filter /FlateDecode`, data));
  }
  return pdfOf(objects);
}

/** The time and the growth of resident memory while `work` runs. */
async function measured<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; rssMb: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  const started = performance.now();
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, ms: performance.now() - started, rssMb: (peak - base) / MB };
  } finally {
    clearInterval(timer);
  }
}

describe('PDF screening: multi-page scans and image bombs', () => {
  let twoPages: Buffer;
  let threePages: Buffer;

  before(async () => {
    // A lossless A4 page at 300 dpi as the eval's scans are made (PNG through pdfkit): an RGB
    // image with a soft mask, 33 MiB decoded.
    const canvas = createCanvas(2480, 3508);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, 2480, 3508);
    ctx.fillStyle = '#000';
    ctx.font = '50px sans-serif';
    for (let i = 0; i < 30; i++)
      ctx.fillText(`Pos. ${i + 1}  Beratung  2  100,00  200,00`, 200, 400 + 90 * i);
    const png = await canvas.encode('png');
    twoPages = await imagesToPdf([png, png]);
    threePages = await imagesToPdf([png, png, png]);
  });

  it('reads two- and three-page lossless 300 dpi scans that one budget for the document refused', async (t) => {
    for (const [pages, pdf] of [
      [2, twoPages],
      [3, threePages],
    ] as const) {
      // What a single budget for the whole document said of them.
      assert.equal(await pdfProblem(pdf, BUDGET), 'pdf_too_large');
      const { result, ms } = await measured(() => pdfProblem(pdf, BUDGET, DEFAULT_LIMITS.maxPages));
      assert.equal(result, null);
      t.diagnostic(`${pages} pages screened in ${Math.round(ms)} ms`);
      const outcome = await extractInvoiceData(pdf, 'application/pdf');
      assert.deepEqual(
        outcome.warnings.map((w) => w.code),
        ['no_text_layer'],
      );
      assert.equal(outcome.needs_ocr, true);
      assert.equal(outcome.pages, pages);
    }
  });

  it('refuses an image that inflates far beyond the size its dictionary declares, fast', async (t) => {
    const bomb = imagePdf(
      '/Width 100 /Height 100 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode',
      deflatedZeros(200),
    );
    assert.ok(bomb.length < 250 * 1024, `${bomb.length} bytes`);
    const { result, ms, rssMb } = await measured(() => pdfProblem(bomb, BUDGET, DEFAULT_LIMITS.maxPages));
    assert.equal(result, 'pdf_too_large');
    t.diagnostic(`refused in ${ms.toFixed(1)} ms, resident memory grew by ${rssMb.toFixed(1)} MB`);
    assert.ok(ms < 1000, `${ms} ms`);
    // The same with the filter given indirectly (no filter named: the data can only be Flate).
    const indirect = imagePdf(
      '/Width 100 /Height 100 /ColorSpace /DeviceGray /Filter 9 0 R',
      deflatedZeros(200),
    );
    assert.equal(await pdfProblem(indirect, BUDGET, 50), 'pdf_too_large');
  });

  it('passes images that inflate to their declared size, with a PNG predictor or an ICC profile', async () => {
    const rgb = deflateSync(Buffer.alloc(100 * 100 * 3, 0x80));
    assert.equal(
      await pdfProblem(
        imagePdf(
          '/Width 100 /Height 100 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode',
          rgb,
        ),
        BUDGET,
        50,
      ),
      null,
    );
    const predicted = deflateSync(Buffer.alloc(100 * (100 * 3 + 1), 0x01));
    assert.equal(
      await pdfProblem(
        imagePdf(
          '/Width 100 /Height 100 /ColorSpace [/ICCBased 7 0 R] /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors 3 /Columns 100 >>',
          predicted,
        ),
        BUDGET,
        50,
      ),
      null,
    );
    // A bilevel mask declares an eighth of a byte a pixel: 100 × 100 is 1300 bytes.
    const mask = '/Width 100 /Height 100 /ImageMask true /Filter /FlateDecode';
    assert.equal(await pdfProblem(imagePdf(mask, deflateSync(Buffer.alloc(1300))), BUDGET, 50), null);
    assert.equal(
      await pdfProblem(imagePdf(mask, deflateSync(Buffer.alloc(30_000))), BUDGET, 50),
      'pdf_too_large',
    );
  });

  it('grows the budget with the pages, counted in the file and in object streams, never beyond maxPages', async () => {
    const budget = 1 * MB;
    assert.equal(documentBudget(budget, 3), 2.5 * MB);
    // Three pages of 0.6 MiB: 1.8 MiB in all, within 2.5 MiB.
    assert.equal(await pdfProblem(pagesPdf(3, 0.6), budget, 50), null);
    assert.equal(await pdfProblem(pagesPdf(3, 0.6, { inObjectStream: true }), budget, 50), null);
    // The same document read with a cap of one or two pages (1.75 MiB).
    assert.equal(await pdfProblem(pagesPdf(3, 0.6), budget, 1), 'pdf_too_large');
    assert.equal(await pdfProblem(pagesPdf(3, 0.6), budget, 2), 'pdf_too_large');
    // One stream beyond the budget is refused however many pages there are.
    assert.equal(await pdfProblem(pagesPdf(3, 1.2), budget, 50), 'pdf_too_large');
  });
});
