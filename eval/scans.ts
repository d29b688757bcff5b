import { createCanvas, loadImage } from '@napi-rs/canvas';
import PDFDocument from 'pdfkit';
import { imageInfo } from '../src/modules/incoming-invoices/ocr/image-info.js';
import { renderPdfPages } from '../src/modules/incoming-invoices/ocr/pdf-pages.js';

/**
 * Scans made from generated PDFs, for the extraction eval and the OCR tests: each page is
 * rendered at 300 dpi (pdf.js on @napi-rs/canvas, the renderer OCR itself uses for PDFs),
 * then made to look scanned — a slight rotation, blur, speckle noise, an uneven grey paper,
 * JPEG compression — and returned as PNG/JPEG images and as an image-only PDF (no text layer).
 * Deterministic for a seed, so an eval run can be repeated exactly.
 */
export interface ScanOptions {
  /** Degrees, positive clockwise; a flatbed scan is off by up to ±2°. */
  rotateDeg?: number;
  /** Gaussian blur radius in pixels at 300 dpi (0.5–1 is a typical scanner). */
  blurPx?: number;
  /** Share of pixels turned to speckle (0.002 = 0.2 %). */
  noise?: number;
  /** JPEG quality 1–100 for the page images; undefined keeps PNG. */
  jpegQuality?: number;
  /** Grey level of the paper, 0–255 (255 white). */
  paper?: number;
  seed?: number;
}

export interface Scan {
  /** One image per page (PNG, or JPEG when `jpegQuality` is set). */
  images: Buffer[];
  format: 'png' | 'jpeg';
  /** The same pages as an image-only PDF, of the original's page size. */
  pdf: Buffer;
}

/** Varied, realistic defaults from a seed: rotation within ±2°, light blur and noise. */
export function scanOptionsFor(seed: number): ScanOptions {
  const r = rng(seed);
  return {
    rotateDeg: (r() * 4 - 2) * (r() < 0.8 ? 1 : 0.25),
    blurPx: 0.3 + r() * 0.6,
    noise: r() * 0.004,
    jpegQuality: r() < 0.5 ? 60 + Math.floor(r() * 30) : undefined,
    paper: 235 + Math.floor(r() * 20),
    seed,
  };
}

export async function scanPdf(pdf: Uint8Array, options: ScanOptions = {}): Promise<Scan> {
  const pages = await renderPdfPages(
    pdf,
    Array.from({ length: 200 }, (_, i) => i + 1),
  );
  const images: Buffer[] = [];
  for (const page of pages) images.push(await scanImage(page.png, options));
  const format = options.jpegQuality ? 'jpeg' : 'png';
  return { images, format, pdf: await imagesToPdf(images) };
}

/** Makes one rendered page look scanned. */
export async function scanImage(png: Buffer, o: ScanOptions = {}): Promise<Buffer> {
  const img = await loadImage(png);
  const { width, height } = img;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  const paper = o.paper ?? 255;
  ctx.fillStyle = `rgb(${paper},${paper},${paper})`;
  ctx.fillRect(0, 0, width, height);
  ctx.save();
  ctx.translate(width / 2, height / 2);
  ctx.rotate(((o.rotateDeg ?? 0) * Math.PI) / 180);
  if (o.blurPx) ctx.filter = `blur(${o.blurPx}px)`;
  // Multiply keeps the grey paper under white page areas.
  ctx.globalCompositeOperation = 'multiply';
  ctx.drawImage(img, -width / 2, -height / 2);
  ctx.restore();
  if (o.noise) {
    const r = rng(o.seed ?? 1);
    const data = ctx.getImageData(0, 0, width, height);
    const px = data.data;
    const n = Math.floor(width * height * o.noise);
    for (let i = 0; i < n; i++) {
      const at = Math.floor(r() * width * height) * 4;
      const v = r() < 0.5 ? 30 : 250;
      px[at] = px[at + 1] = px[at + 2] = v;
    }
    ctx.putImageData(data, 0, 0);
  }
  return o.jpegQuality ? canvas.encode('jpeg', o.jpegQuality) : canvas.encode('png');
}

/** An image-only PDF: one page per image, of the size the image has at 300 dpi, nothing else on it. */
export function imagesToPdf(images: Buffer[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ margin: 0, autoFirstPage: false });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    for (const image of images) {
      const { width, height } = imageInfo(image)!;
      const size: [number, number] = [(width * 72) / 300, (height * 72) / 300];
      doc.addPage({ size, margin: 0 });
      doc.image(image, 0, 0, { width: size[0], height: size[1] });
    }
    doc.end();
  });
}

/** mulberry32: a small seeded generator. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
