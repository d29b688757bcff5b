/**
 * ISO 11649 structured creditor references ("RF" + two check digits + up to 21 letters and
 * digits, mod 97 as for IBANs). The invoice PDF prints one per invoice (and puts it in the
 * GiroCode); bank matching looks for it first. It is derived from the invoice number, which
 * is unique per account and never changes once booked, so the same invoice always has the
 * same reference and nothing needs storing.
 */

function mod97(s: string): number {
  let r = 0;
  for (const ch of s) {
    const v = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of v) r = (r * 10 + Number(d)) % 97;
  }
  return r;
}

/** The reference of an invoice number (its letters and digits); null when they are more than 21. */
export function creditorReference(invoiceNumber: string): string | null {
  const ref = invoiceNumber.toUpperCase().replace(/[^A-Z0-9]/g, '');
  if (ref.length === 0 || ref.length > 21) return null;
  const check = 98 - mod97(`${ref}RF00`);
  return `RF${String(check).padStart(2, '0')}${ref}`;
}

/** Whether a reference (blanks and case ignored) has the form and check digits of ISO 11649. */
export function isValidCreditorReference(input: string): boolean {
  const r = input.replace(/\s+/g, '').toUpperCase();
  return /^RF\d{2}[A-Z0-9]{1,21}$/.test(r) && mod97(`${r.slice(4)}${r.slice(0, 4)}`) === 1;
}

/** The printed form: groups of four, as on payment slips ("RF18 5390 0754 7034"). */
export const groupedReference = (ref: string): string => ref.replace(/(.{4})(?=.)/g, '$1 ');
