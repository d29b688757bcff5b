import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import PDFDocument from 'pdfkit';
import { pdfPageWords } from '../../src/modules/incoming-invoices/layout/pdf-words.js';
import { findAmounts, findDates, type Lang } from '../../src/modules/incoming-invoices/layout/values.js';

describe('amounts as invoices print them', () => {
  const cases: [string, string[]][] = [
    ['1.234,56 €', ['1234.56']],
    ['1,234.56', ['1234.56']],
    ['1 234,56 €', ['1234.56']],
    ['EUR 1234.50', ['1234.50']],
    ['£1,000,000.00', ['1000000.00']],
    ['-119,00 €', ['-119.00']],
    ['119,00-', ['-119.00']],
    ['1.234.56', []], // group separator = decimal separator: not an amount
    ['12 Stück, 2026, 19 %', []], // quantities, years and rates are not money
    ['19 % MwSt auf 1.000,00: 190,00', ['1000.00', '190.00']],
  ];
  for (const [text, expected] of cases)
    it(text, () =>
      assert.deepEqual(
        findAmounts(text).map((a) => a.value),
        expected,
      ),
    );
});

describe('dates as invoices print them', () => {
  const cases: [string, Lang, string | undefined, boolean?][] = [
    ['06.12.2026', 'de', '2026-12-06'],
    ['6.12.26', 'de', '2026-12-06'],
    ['2026-12-06', 'en', '2026-12-06'],
    ['6 December 2026', 'en', '2026-12-06'],
    ['December 6, 2026', 'en', '2026-12-06'],
    ['6. Dezember 2026', 'de', '2026-12-06'],
    ['1er décembre 2026', 'fr', '2026-12-01'],
    ['06/12/2026', 'fr', '2026-12-06'],
    ['06/12/2026', 'de', '2026-12-06'],
    // English day/month order is a guess: read US-style, and marked unsure.
    ['06/12/2026', 'en', '2026-06-12', false],
    ['25/12/2026', 'en', '2026-12-25'],
    // Dates of other producers' software: dashes, a blank before the comma, Dutch months.
    ['20-10-2015', 'de', '2015-10-20'],
    ['Factuurdatum 20-10-2015', 'de', '2015-10-20'],
    ['August 3 , 2014', 'en', '2014-08-03'],
    ['3 maart 2026', 'de', '2026-03-03'],
    ['12 mei 2026', 'de', '2026-05-12'],
    // What OCR makes of dates: dots read as commas (day first, unsure), an umlaut lost.
    ['16,09,2013', 'de', '2013-09-16', false],
    ['11. Marz 2014', 'de', '2014-03-11'],
    ['1,234,56', 'de', undefined],
    ['030-12-2015', 'de', undefined],
    ['31.02.2026', 'de', undefined],
    ['1.234,56', 'de', undefined],
  ];
  for (const [text, lang, expected, sure = true] of cases)
    it(`${text} (${lang})`, () => {
      const found = findDates(text, lang)[0];
      assert.equal(found?.value, expected);
      if (found) assert.equal(found.sure, sure);
    });
});

describe('pdf.js text layer as positioned words', () => {
  it('gives words with boxes from the top left, and names the pages without text', async () => {
    const pdf = new PDFDocument({ size: 'A4', margin: 0 });
    const chunks: Buffer[] = [];
    pdf.on('data', (c: Buffer) => chunks.push(c));
    const done = new Promise<Buffer>((resolve) => pdf.on('end', () => resolve(Buffer.concat(chunks))));
    pdf.font('Helvetica').fontSize(10).text('Rechnungsnummer RE-1', 100, 100, { lineBreak: false });
    pdf.text('Gesamtbetrag 1.190,00', 300, 700, { lineBreak: false });
    pdf.addPage();
    pdf.end();
    const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const doc = await getDocument({ data: new Uint8Array(await done), verbosity: 0 }).promise;
    const read = await pdfPageWords(doc, 5);
    await doc.destroy();
    assert.equal(read.numPages, 2);
    assert.deepEqual(read.withoutText, [2]);
    const words = read.pages[0]!.words;
    assert.deepEqual(
      words.map((w) => w.text),
      ['Rechnungsnummer', 'RE-1', 'Gesamtbetrag', '1.190,00'],
    );
    const [label, value, total] = words;
    assert.ok(Math.abs(label!.x - 100) < 1 && Math.abs(label!.y - 100) < 4, `${label!.x},${label!.y}`);
    assert.ok(value!.x > label!.x + label!.w, 'the second word starts after the first');
    assert.ok(total!.y > 690 && total!.y < 710, 'y grows downwards');
    assert.ok(label!.h > 8 && label!.h < 12);
  });
});
