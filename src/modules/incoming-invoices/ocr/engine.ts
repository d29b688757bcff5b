import { createHash } from 'node:crypto';
import { mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { createWorker, OEM, PSM, type Worker as TesseractWorker } from 'tesseract.js';
import type { PageWords, Word } from '../extraction.model.js';

/**
 * Tesseract (tesseract.js: the C++ engine compiled to WebAssembly) with the German and English
 * LSTM models from the `@tesseract.js-data/*` npm packages. Nothing is fetched at run time: the
 * engine comes from `tesseract.js-core` in node_modules, the models from the installed packages,
 * and no cache is written. One engine per thread, started on first use and kept for the next page.
 */
const LANGS = ['deu', 'eng'] as const;
/** The `best_int` models: LSTM only (no legacy engine), the most accurate of the small ones. */
const MODEL_DIR = '4.0.0_best_int';

/** A page whose words average below this is read again turned (a scan fed in upside down or sideways). */
const TURN_BELOW = 0.55;

const require = createRequire(import.meta.url);

let engine: Promise<TesseractWorker> | undefined;
let langDir: string | undefined;

/**
 * tesseract.js loads every language from one `langPath` directory, and the packages keep each
 * model in a directory of its own: a directory of links to the installed files joins them. It
 * is named after the installation, so every thread and run shares one and none is left behind.
 */
function languageDirectory(): string {
  if (langDir) return langDir;
  const files = LANGS.map((code) => ({
    name: `${code}.traineddata.gz`,
    target: require.resolve(`@tesseract.js-data/${code}/${MODEL_DIR}/${code}.traineddata.gz`),
  }));
  const key = createHash('sha256')
    .update(files.map((f) => f.target).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const dir = join(tmpdir(), `ocr-models-${key}`);
  mkdirSync(dir, { recursive: true });
  for (const f of files) {
    const link = join(dir, f.name);
    try {
      if (readlinkSync(link) === f.target) continue;
      rmSync(link, { force: true });
    } catch {
      // Not there yet.
    }
    try {
      symlinkSync(f.target, link);
    } catch (err) {
      // Another thread made it meanwhile.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  langDir = dir;
  return dir;
}

function getEngine(): Promise<TesseractWorker> {
  // Rendering (@napi-rs/canvas) and tesseract in the process that serves requests once ended
  // in a segfault, and a page's seconds of work would stall it anyway: OCR runs in the pool's
  // child processes (ocr.pool.ts) only.
  if (isMainThread && !process.env.WORKER_POOL_CHILD)
    return Promise.reject(new Error('OCR runs in a worker process (ocr.pool.ts), not the main thread'));
  engine ??= createWorker([...LANGS].join('+'), OEM.LSTM_ONLY, {
    langPath: languageDirectory(),
    // 'none': read the models from langPath every start and never write a cache file.
    cacheMethod: 'none',
    gzip: true,
    // The worker script and the WebAssembly core are the installed ones (node_modules).
    errorHandler: () => {},
  })
    // Scans carry no trustworthy resolution; 300 dpi is what they are made at and silences
    // tesseract's guess (a line on stderr per page).
    .then(async (w) => {
      await w.setParameters({
        user_defined_dpi: '300',
        // One column of lines across the page, of varying sizes: the page comes straightened
        // (raster.ts), so tesseract's own column finding (PSM 3) buys nothing and splits table
        // cells and "Date: 27 October" into separate blocks; label and value stay on one line.
        // Unlike one uniform block (PSM 6), a small caption beside a large value (a ruled header
        // box) is not garbled: 17 of 17 dev scans of other producers read fully right against
        // 16; the foreign layouts' and the own scans unchanged; CPU per page the same within 2 %.
        tessedit_pageseg_mode: PSM.SINGLE_COLUMN,
        // Invoices print dark on light: trying every doubtful line inverted again is wasted.
        tessedit_do_invert: '0',
      });
      return w;
    })
    .catch((err: unknown) => {
      engine = undefined;
      throw err;
    });
  return engine;
}

export async function closeEngine(): Promise<void> {
  const e = engine;
  engine = undefined;
  if (e) await (await e).terminate();
}

/**
 * Reads one image (a page prepared by raster.ts, or a TIFF's first page as it is) of `size`
 * pixels into positioned words, in pixels from the top left of the (straightened) image.
 * `straighten` asks tesseract to find and undo the skew itself: for images raster.ts could not
 * decode (TIFF), at the cost of a second layout pass.
 */
export async function recognize(
  image: Buffer,
  size: { width: number; height: number },
  page = 1,
  straighten = false,
): Promise<PageWords> {
  const w = await getEngine();
  let best: PageWords | undefined;
  let bestScore = -1;
  // Turns by quarters only when the page reads badly, so a normal page costs one pass.
  for (const turn of [0, Math.PI, Math.PI / 2, -Math.PI / 2]) {
    const options = turn === 0 ? (straighten ? { rotateAuto: true } : {}) : { rotateRadians: turn };
    const { data } = await w.recognize(image, options, {
      blocks: true,
      text: false,
    });
    const words: Word[] = [];
    for (const block of data.blocks ?? [])
      for (const para of block.paragraphs)
        for (const line of para.lines)
          for (const word of line.words) {
            const text = cleanNumber(word.text.trim());
            if (!text) continue;
            const { x0, y0, x1, y1 } = word.bbox;
            words.push({ text, x: x0, y: y0, w: x1 - x0, h: y1 - y0, confidence: word.confidence / 100 });
          }
    const score = meanConfidence(words);
    const quarter = Math.abs(turn) === Math.PI / 2;
    if (score > bestScore) {
      best = {
        page,
        width: quarter ? size.height : size.width,
        height: quarter ? size.width : size.height,
        words,
      };
      bestScore = score;
    }
    if (score >= TURN_BELOW || words.length === 0) break;
  }
  return best!;
}

/**
 * How well a page read: the mean confidence of its real words (three letters or digits and
 * more). Speckles a noisy scan turns into one-character "words" do not count: they would make
 * a good page look bad and cost it three more passes.
 */
function meanConfidence(words: Word[]): number {
  let chars = 0;
  let sum = 0;
  for (const w of words) {
    const n = w.text.replace(/[^\p{L}\p{N}]/gu, '').length;
    if (n < 3) continue;
    chars += n;
    sum += (w.confidence ?? 0) * n;
  }
  return chars === 0 ? 0 : sum / chars;
}

/**
 * A speck beside a dot turns "12.7.25" into "12:.7.25": in a token of digits and punctuation
 * only, a run of punctuation marks that holds a dot is that dot. Amounts ("1.234,56") have no
 * such runs and stay as they are.
 */
export function cleanNumber(text: string): string {
  return /^[\d.,:;]+$/.test(text)
    ? text.replace(/[.,:;]{2,}/g, (run) => (run.includes('.') ? '.' : run))
    : text;
}
