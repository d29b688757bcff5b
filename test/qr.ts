import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

const run = promisify(execFile);
// jsqr is CommonJS typed as an ES default export: at run time the import is the function itself.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

/**
 * The QR codes printed on a PDF, read the way a phone would: every page rasterised by
 * poppler's pdftoppm (100 dpi) and each PNG decoded with jsQR. One code per page at most.
 */
export async function qrCodesOfPdf(pdf: Buffer): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'qr-'));
  try {
    await writeFile(join(dir, 'doc.pdf'), pdf);
    await run('pdftoppm', ['-r', '100', '-png', join(dir, 'doc.pdf'), join(dir, 'page')]);
    const out: string[] = [];
    for (const name of (await readdir(dir)).filter((n) => n.endsWith('.png')).sort()) {
      const png = PNG.sync.read(await readFile(join(dir, name)));
      // dontInvert: light codes on dark ground never occur here, and the inverted pass is where
      // jsQR sometimes "finds" an empty code in plain text; a real payload is never empty.
      const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height, {
        inversionAttempts: 'dontInvert',
      });
      if (code && code.data !== '') out.push(code.data);
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** An EPC069-12 payload split into its named lines. */
export function epcFields(payload: string) {
  const l = payload.split('\n');
  return {
    service: l[0],
    version: l[1],
    charset: l[2],
    identification: l[3],
    bic: l[4],
    name: l[5],
    iban: l[6],
    amount: l[7],
    purpose: l[8] ?? '',
    reference: l[9] ?? '',
    text: l[10] ?? '',
  };
}
