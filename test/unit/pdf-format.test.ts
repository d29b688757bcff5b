import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { paymentTerms, pdfLanguage } from '../../src/modules/outgoing-invoices/invoices.pdf.js';
import { formatterFor } from '../../src/shared/pdf/format.js';
import { unitCode, unitLabel } from '../../src/shared/pdf/units.js';

/** What German and English documents print: dates, units, payment terms, the language itself. */

describe('document text', () => {
  it('formats dates per language: 06.12.2026 in German, 6 Dec 2026 in English', () => {
    const de = formatterFor({ language: 'de', currency: 'EUR' });
    const en = formatterFor({ language: 'en', currency: 'EUR' });
    const table: [string, string, string][] = [
      ['2026-12-06', '06.12.2026', '6 Dec 2026'],
      ['2026-01-31', '31.01.2026', '31 Jan 2026'],
      ['0001-01-01', '01.01.0001', '1 Jan 1'],
      ['9999-12-31', '31.12.9999', '31 Dec 9999'],
    ];
    for (const [iso, german, english] of table) {
      assert.equal(de.date(iso), german, iso);
      assert.equal(en.date(iso), english, iso);
    }
    assert.equal(de.date(null), '');
  });

  it('prints units from the table in the document language, with Rec 20 codes for the XML', () => {
    const table: [string, string, string, string, string][] = [
      // typed unit, quantity, German, English, code
      ['pc', '3', 'Stk.', 'pcs', 'C62'],
      ['pc', '1', 'Stk.', 'pc', 'C62'],
      ['Stk.', '2', 'Stk.', 'pcs', 'C62'],
      ['h', '2.5', 'Std.', 'hrs', 'HUR'],
      ['Stunden', '1', 'Std.', 'hr', 'HUR'],
      ['HUR', '8', 'Std.', 'hrs', 'HUR'],
      ['day', '1', 'Tag', 'day', 'DAY'],
      ['Tage', '3', 'Tage', 'days', 'DAY'],
      ['pauschal', '1', 'Pauschal', 'lump sum', 'LS'],
      ['LS', '1', 'Pauschal', 'lump sum', 'LS'],
      ['km', '120', 'km', 'km', 'KMT'],
      ['month', '1', 'Monat', 'month', 'MON'],
      ['Monate', '12', 'Monate', 'months', 'MON'],
      ['Woche', '2', 'Wochen', 'weeks', 'WEE'],
      ['min', '30', 'Min.', 'min', 'MIN'],
      ['Lizenz', '5', 'Lizenz', 'Lizenz', 'C62'],
    ];
    for (const [unit, quantity, german, english, code] of table) {
      assert.equal(unitLabel(unit, 'de', quantity), german, `${unit} ${quantity} de`);
      assert.equal(unitLabel(unit, 'en', quantity), english, `${unit} ${quantity} en`);
      assert.equal(unitCode(unit), code, unit);
    }
    assert.equal(unitLabel(null, 'de'), '');
    assert.equal(unitCode(null), 'C62');
  });

  it('writes payment terms with the date in the language of the document', () => {
    const table: [string | null, number | null, 'de' | 'en', string | null][] = [
      ['2026-12-06', 14, 'de', 'Zahlbar ohne Abzug bis 06.12.2026 (14 Tage).'],
      ['2026-12-06', null, 'de', 'Zahlbar ohne Abzug bis 06.12.2026.'],
      ['2026-12-06', 30, 'en', 'Payable without deduction by 6 Dec 2026 (30 days).'],
      [null, 14, 'de', null],
    ];
    for (const [due, days, lang, expected] of table) {
      assert.equal(paymentTerms('invoice', lang, { due_date: due, payment_term_days: days }), expected);
    }
    assert.match(paymentTerms('credit', 'de', { due_date: null, payment_term_days: null })!, /verrechnet/);
  });

  it('chooses the language: the client’s (de German, others English), else the seller’s country', () => {
    const table: [string | null, string | null, 'de' | 'en'][] = [
      ['de', 'GB', 'de'],
      ['en', 'DE', 'en'],
      ['fr', 'DE', 'en'],
      [null, 'DE', 'de'],
      [null, 'at', 'de'],
      [null, 'GB', 'en'],
      [null, null, 'en'],
    ];
    for (const [client, seller, lang] of table)
      assert.equal(pdfLanguage(client, seller), lang, `${client}/${seller}`);
  });
});
