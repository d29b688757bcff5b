import QRCode from 'qrcode';
import { groupedReference } from '../creditor-reference.js';
import { COLORS, type Ctx, ensureSpace, LEFT, MM, put, WIDTH } from './layout.js';
import type { PdfGiroCode } from './types.js';

/**
 * The GiroCode (EPC QR code, EPC069-12 version 002) of an invoice: banking apps read the
 * payee, IBAN, amount and reference from it, so the client pays without typing, and the
 * structured reference comes back on the bank statement for matching.
 */

/** EPC069-12 limits: name 70, reference 35, text 140 characters; amount 0.01 to 999,999,999.99. */
const MAX_NAME = 70;
const MAX_TEXT = 140;

/**
 * The payload, line by line: service tag, version, character set (1: UTF-8), identification,
 * BIC (optional in version 002), name, IBAN, amount, purpose (empty), then either the
 * structured reference or the text, never both.
 */
export function epcPayload(g: PdfGiroCode): string {
  return [
    'BCD',
    '002',
    '1',
    'SCT',
    g.bic ?? '',
    [...g.name].slice(0, MAX_NAME).join(''),
    g.iban,
    `EUR${g.amount}`,
    '',
    g.reference ?? '',
    g.reference ? '' : [...(g.text ?? '')].slice(0, MAX_TEXT).join(''),
  ]
    .join('\n')
    .replace(/\n+$/, '');
}

const LABELS = {
  en: {
    heading: 'Pay by GiroCode',
    hint: 'Scan the code with your banking app: payee, IBAN, amount and reference are filled in.',
    reference: 'Payment reference',
    purpose: 'Purpose',
    amount: 'Amount',
  },
  de: {
    heading: 'Bezahlen per GiroCode',
    hint: 'Scannen Sie den Code mit Ihrer Banking-App: Empfänger, IBAN, Betrag und Referenz werden übernommen.',
    reference: 'Zahlungsreferenz',
    purpose: 'Verwendungszweck',
    amount: 'Betrag',
  },
};

const SIDE = 30 * MM;

/** Draws the code with its reference, IBAN and amount beside it (vector squares, no image). */
export function drawGiroCode(ctx: Ctx, g: PdfGiroCode): void {
  const { pdf, fmt } = ctx;
  const l = LABELS[fmt.lang];
  ensureSpace(ctx, SIDE + 4 * MM);
  const top = ctx.y + 1 * MM;
  // Error correction M, as EPC069-12 requires; the page's white margin is the quiet zone.
  const code = QRCode.create(epcPayload(g), { errorCorrectionLevel: 'M' });
  const n = code.modules.size;
  const cell = SIDE / n;
  pdf.save();
  for (let r = 0; r < n; r++)
    for (let c = 0; c < n; c++)
      if (code.modules.get(r, c)) pdf.rect(LEFT + c * cell, top + r * cell, cell, cell);
  pdf.fillColor('#000000').fill();
  pdf.restore();

  const x = LEFT + SIDE + 6 * MM;
  const w = WIDTH - SIDE - 6 * MM;
  let y = top;
  y += put(pdf, l.heading, x, y, w, { bold: true, size: 9.5 });
  y += put(pdf, l.hint, x, y, w, { size: 8, color: COLORS.muted }) + 1.5 * MM;
  const rows: [string, string][] = [
    g.reference ? [l.reference, groupedReference(g.reference)] : [l.purpose, g.text ?? ''],
    ['IBAN', g.iban.replace(/(.{4})(?=.)/g, '$1 ')],
    [l.amount, fmt.money(g.amount)],
  ];
  for (const [label, value] of rows) {
    put(pdf, label, x, y, 32 * MM, { size: 8.5, color: COLORS.muted });
    y += put(pdf, value, x + 33 * MM, y, w - 33 * MM, { size: 8.5, bold: label === l.reference });
  }
  ctx.y = Math.max(top + SIDE, y) + 5 * MM;
}
