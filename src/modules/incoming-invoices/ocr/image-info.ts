/** The raster formats OCR reads, recognised by their first bytes (never by a declared type). */
export type ImageFormat = 'png' | 'jpeg' | 'tiff';

export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
  /** Images in the file: a TIFF may hold several pages. */
  pages: number;
}

export function sniffImage(b: Buffer): ImageFormat | undefined {
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && (b.toString('latin1', 0, 4) === 'II*\0' || b.toString('latin1', 0, 4) === 'MM\0*'))
    return 'tiff';
  return undefined;
}

/** Format, size and page count from the headers alone; undefined for a file it cannot read. */
export function imageInfo(b: Buffer): ImageInfo | undefined {
  try {
    const format = sniffImage(b);
    if (format === 'png') return { format, width: b.readUInt32BE(16), height: b.readUInt32BE(20), pages: 1 };
    if (format === 'jpeg') return jpegInfo(b);
    if (format === 'tiff') return tiffInfo(b);
  } catch {
    // A header cut short (RangeError): not an image we can read.
  }
  return undefined;
}

function jpegInfo(b: Buffer): ImageInfo | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    // SOF0…SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { format: 'jpeg', height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7), pages: 1 };
    i += 2 + b.readUInt16BE(i + 2);
  }
  return undefined;
}

function tiffInfo(b: Buffer): ImageInfo | undefined {
  const le = b[0] === 0x49;
  const u16 = (o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const u32 = (o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  let width = 0;
  let height = 0;
  let pages = 0;
  const seen = new Set<number>();
  for (let ifd = u32(4); ifd !== 0 && !seen.has(ifd) && pages < 10_000; pages++) {
    seen.add(ifd);
    const n = u16(ifd);
    if (pages === 0)
      for (let e = 0; e < n; e++) {
        const at = ifd + 2 + e * 12;
        const tag = u16(at);
        const value = u16(at + 2) === 3 ? u16(at + 8) : u32(at + 8);
        if (tag === 256) width = value;
        if (tag === 257) height = value;
      }
    ifd = u32(ifd + 2 + n * 12);
  }
  return width > 0 && height > 0 ? { format: 'tiff', width, height, pages } : undefined;
}
