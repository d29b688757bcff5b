import assert from 'node:assert/strict';
import { unzipSync } from 'fflate';
import type { Api } from './helpers.js';

/**
 * Reading what the accounting endpoints answer: a DATEV export's ZIP as served (its EXTF files
 * split into fields) and the VAT return's figures.
 */

export const BOOKINGS = 'EXTF_Buchungsstapel.csv';
export const PARTIES = 'EXTF_Debitoren_Kreditoren.csv';

/** Lines of an EXTF file (CRLF) split into fields; quotes are kept, as the file has them. */
export const linesOf = (file: string): string[][] =>
  file
    .split('\r\n')
    .slice(0, -1)
    .map((l) => l.split(';'));

/** Signed cents of a Buchungsstapel row: S positive, H negative. */
export const cents = (r: string[]): number => Number(r[0]!.replace(',', '')) * (r[1] === '"S"' ? 1 : -1);

/** An export's file as served (GET /exports/{id}/download). */
export async function downloadExport(api: Api, id: number) {
  const res = await api.app.inject({
    method: 'GET',
    url: `/api/v1/exports/${id}/download`,
    headers: { authorization: `Bearer ${api.token}` },
  });
  return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload };
}

/**
 * The files of an export's ZIP, as bytes and the two EXTF files as text decoded from
 * Windows-1252 (Latin-1 but for 0x80–0x9F, of which the fixtures use only €; Node's TextDecoder
 * may lack the code page), and the Buchungsstapel's rows (below its header and column lines).
 */
export function unzipExport(zip: Buffer) {
  const files = unzipSync(new Uint8Array(zip));
  const text = (name: string) => Buffer.from(files[name]!).toString('latin1').replaceAll('\x80', '€');
  const bookings = text(BOOKINGS);
  return { files, bookings, parties: text(PARTIES), rows: linesOf(bookings).slice(2) };
}

/** An export's file as served, unzipped (`unzipExport`). */
export async function readExport(api: Api, id: number) {
  const file = await downloadExport(api, id);
  assert.equal(file.status, 200);
  return unzipExport(file.bytes);
}

/** POST /exports/datev with `body` (201) and its file as served, unzipped: the record with it. */
export async function exportDatev(api: Api, body: Record<string, unknown>) {
  const res = await api.post('/exports/datev', body);
  assert.equal(res.status, 201, res.text);
  return { record: res.body.data, ...(await readExport(api, res.body.data.id)) };
}

/** A VAT return's figures (GET /reports/vat-return) by Kennzahl: [base, tax]. */
export function vatFigures(report: {
  figures: { kennzahl: string; base: number | null; tax: number | null }[];
}): Record<string, [number | null, number | null]> {
  return Object.fromEntries(report.figures.map((f) => [f.kennzahl, [f.base, f.tax]]));
}
