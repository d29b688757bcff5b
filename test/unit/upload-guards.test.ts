import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_LIMITS } from '../../src/modules/incoming-invoices/extraction.js';
import { pdfProblem } from '../../src/modules/incoming-invoices/pdf-guard.js';
import { xmlProblem } from '../../src/modules/incoming-invoices/xml-guard.js';
import { renderDocumentPdf } from '../../src/shared/pdf/render.js';
import { sampleDocument } from '../../src/shared/pdf/sample.js';
import { attributeBomb, billionLaughs, deepXml, pdfBomb } from '../upload-bombs.js';

const BUDGET = 64 * 1024 * 1024;

/** A zlib header with a window size zlib refuses but pdf.js, which does not check it, reads. */
function wideWindow(deflated: Buffer): Buffer {
  const b = Buffer.from(deflated);
  b[0] = 0x88;
  const level = b[1]! & 0xc0;
  b[1] = level + (31 - (((0x88 << 8) + level) % 31));
  return b;
}

describe('PDF screening before pdf.js', () => {
  it('passes ordinary invoices, with and without Factur-X', async () => {
    for (const booked of [true, false])
      assert.equal(await pdfProblem(await renderDocumentPdf(sampleDocument({ booked })), BUDGET), null);
  });

  it('passes a stream within the budget and refuses one beyond it', async () => {
    assert.equal(await pdfProblem(pdfBomb(10), BUDGET), null);
    assert.equal(await pdfProblem(pdfBomb(110), BUDGET), 'pdf_too_large');
  });

  const ways: [string, Parameters<typeof pdfBomb>[1]][] = [
    ['the filter name escaped', { filter: '/Fl#61teDecode' }],
    ['the filter abbreviated', { filter: '/Fl' }],
    ['the filter in an array', { filter: '[/FlateDecode]' }],
    ['the filter an indirect object', { filter: '9 0 R' }],
    ['the filter under the key /F', { filterKey: '/F' }],
    ['a comment between dictionary and keyword', { beforeKeyword: ' % note\n' }],
    ['spaces after the keyword', { afterKeyword: '   \r\n' }],
    ['a zlib header only pdf.js accepts', { mangle: wideWindow }],
  ];
  for (const [name, options] of ways)
    it(`refuses a bomb written with ${name}`, async () => {
      assert.equal(await pdfProblem(pdfBomb(110, options), BUDGET), 'pdf_too_large');
    });

  it('counts the worst case of a filter it cannot measure', async () => {
    // 1 MB of spaces deflated is about 1 KB; as LZW it could grow 4096-fold.
    assert.equal(await pdfProblem(pdfBomb(1, { filter: '/LZWDecode' }), 1024 * 1024), 'pdf_too_large');
  });

  it('does not read encrypted documents', async () => {
    assert.equal(await pdfProblem(pdfBomb(1, { extraTrailer: '/Encrypt 9 0 R ' }), BUDGET), 'encrypted');
  });
});

describe('XML screening before the parser', () => {
  const ok =
    '<?xml version="1.0"?><!-- a <comment> --><r a="1>2" b=\'x\'><c><![CDATA[<<<]]></c><d/><?pi <x>?></r>';
  it('passes ordinary documents, comments, CDATA and quoted > included', () => {
    assert.equal(xmlProblem(ok, DEFAULT_LIMITS), null);
  });
  it('refuses DOCTYPEs, depth, attribute lists and size beyond the limits', () => {
    assert.equal(xmlProblem(billionLaughs(), DEFAULT_LIMITS), 'xml_doctype');
    assert.equal(xmlProblem(deepXml(100_000), DEFAULT_LIMITS), 'xml_too_deep');
    assert.equal(xmlProblem(deepXml(10), DEFAULT_LIMITS), null);
    assert.equal(xmlProblem(attributeBomb(1024 * 1024), DEFAULT_LIMITS), 'xml_attributes');
    assert.equal(xmlProblem(ok, { ...DEFAULT_LIMITS, maxChars: 10 }), 'xml_too_large');
  });
});
