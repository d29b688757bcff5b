/** A statement file recognised by its content, decoded and read. Pure. */
import { unzipSync } from 'fflate';
import { looksLikeCamt, parseCamt } from './camt.domain.js';
import { looksLikeMt940, parseMt940 } from './mt940.domain.js';
import { type ParsedStatement, StatementError } from './statement.domain.js';

/** At most this many entries in one file: beyond, a 422 (split the export). */
export const MAX_ENTRIES = 20_000;

function decode(bytes: Buffer): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3).toString('utf8');
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    throw new StatementError('UTF-16 files are not accepted: export the statement as UTF-8 or ISO 8859-1');
  // NUL bytes: no text format of a statement has them.
  if (bytes.subarray(0, 65536).includes(0)) throw new StatementError('the file is binary, not a statement');
  const utf8 = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  // Not UTF-8: German MT940 exports are ISO 8859-1 (or Windows-1252).
  return utf8.includes('\ufffd') ? bytes.toString('latin1') : utf8;
}

/** ZIP of statements: at most this many files, and this many bytes unpacked (zip bombs). */
export const MAX_ZIP_FILES = 100;
export const MAX_ZIP_BYTES = 50 * 1024 * 1024;

const isZip = (b: Buffer) =>
  b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

/** The statements of every file of a ZIP, in name order (folders and hidden files left out). */
function parseZip(bytes: Buffer): ParsedStatement[] {
  let files = 0;
  let total = 0;
  let members: Record<string, Uint8Array>;
  try {
    members = unzipSync(bytes, {
      filter: (f) => {
        const base = f.name.split('/').pop() ?? '';
        if (f.name.endsWith('/') || base.startsWith('.') || f.name.startsWith('__MACOSX/')) return false;
        files++;
        total += f.originalSize;
        if (files > MAX_ZIP_FILES) throw new StatementError(`the ZIP holds more than ${MAX_ZIP_FILES} files`);
        if (total > MAX_ZIP_BYTES)
          throw new StatementError(`the ZIP unpacks to more than ${MAX_ZIP_BYTES / 1024 / 1024} MB`);
        return true;
      },
    });
  } catch (err) {
    if (err instanceof StatementError) throw err;
    throw new StatementError(`the ZIP cannot be read: ${(err as Error).message}`);
  }
  const names = Object.keys(members).sort();
  if (names.length === 0) throw new StatementError('the ZIP holds no file');
  return names.flatMap((name) => {
    const member = Buffer.from(members[name]!);
    if (isZip(member)) throw new StatementError(`${name}: a ZIP inside the ZIP is not read`);
    try {
      return readOne(member);
    } catch (err) {
      if (err instanceof StatementError) throw new StatementError(`${name}: ${err.message}`);
      throw err;
    }
  });
}

/** A statement file (CAMT, MT940) or a ZIP of them. */
export function parseStatementFile(bytes: Buffer): ParsedStatement[] {
  const statements = isZip(bytes) ? parseZip(bytes) : readOne(bytes);
  const count = statements.reduce((n, s) => n + s.entries.length, 0);
  if (count > MAX_ENTRIES)
    throw new StatementError(`the file holds ${count} entries, more than ${MAX_ENTRIES}`);
  return statements;
}

function readOne(bytes: Buffer): ParsedStatement[] {
  const text = decode(bytes);
  const head = text.slice(0, 4096).trimStart();
  let statements: ParsedStatement[];
  if (head.startsWith('<')) {
    if (!looksLikeCamt(text))
      throw new StatementError('the XML is no CAMT.052, CAMT.053 or CAMT.054 message');
    statements = parseCamt(text);
  } else if (looksLikeMt940(text)) {
    statements = parseMt940(text);
  } else {
    throw new StatementError('the file is neither CAMT.052/053/054 nor MT940/MT942');
  }
  const count = statements.reduce((n, s) => n + s.entries.length, 0);
  if (count > MAX_ENTRIES)
    throw new StatementError(`the file holds ${count} entries, more than ${MAX_ENTRIES}`);
  return statements;
}
