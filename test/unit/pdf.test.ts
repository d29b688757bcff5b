import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { renderDocumentPdf } from '../../src/shared/pdf/render.js';
import { sampleDocument } from '../../src/shared/pdf/sample.js';
import type { PdfDocument } from '../../src/shared/pdf/types.js';

interface Parsed {
  pages: string[];
  text: string;
  attachments: Record<string, { filename: string; content: Uint8Array }> | null;
}

/** Intl puts (narrow) no-break spaces into amounts; compare with plain spaces. */
const norm = (s: string) => s.replace(/[\s\u00a0\u202f]+/g, ' ');

async function parse(buf: Buffer): Promise<Parsed> {
  const pdf = await getDocument({ data: new Uint8Array(buf), useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const pages: string[] = [];
    for (let i = 1; i <= pdf.numPages; i++) {
      const page = await pdf.getPage(i);
      const content = await page.getTextContent();
      pages.push(norm(content.items.map((item) => ('str' in item ? item.str : '')).join(' ')));
    }
    return { pages, text: pages.join('\n'), attachments: await pdf.getAttachments() };
  } finally {
    await pdf.destroy();
  }
}

function facturX(parsed: Parsed): string {
  const file = parsed.attachments?.['factur-x.xml'];
  assert.ok(file, 'factur-x.xml is embedded');
  assert.equal(file.filename, 'factur-x.xml');
  return new TextDecoder().decode(file.content);
}

function money(doc: PdfDocument, value: string): string {
  const locale = doc.language === 'de' ? 'de-DE' : 'en-GB';
  return norm(
    new Intl.NumberFormat(locale, { style: 'currency', currency: doc.currency }).format(value as '0'),
  );
}

const xmlParser = new XMLParser({ ignoreAttributes: false, parseTagValue: false });

describe('renderDocumentPdf', () => {
  it('renders a short English invoice: number, buyer, gross total, embedded Factur-X', async () => {
    const doc = sampleDocument({ lines: 3, language: 'en', number: 'INV-2025-0107' });
    const buf = await renderDocumentPdf(doc);
    assert.equal(buf.subarray(0, 8).toString('latin1'), '%PDF-1.7');
    assert.match(buf.subarray(-8).toString('latin1'), /%%EOF\s*$/);
    const parsed = await parse(buf);
    assert.equal(parsed.pages.length, 1);
    assert.match(parsed.text, /Invoice INV-2025-0107/);
    assert.ok(parsed.text.includes('Müller & Söhne Bäckerei GmbH'), 'buyer name');
    assert.ok(parsed.text.includes(money(doc, doc.gross_total)), `gross ${money(doc, doc.gross_total)}`);
    assert.match(money(doc, '1234.56'), /^€1,234\.56$/);
    assert.ok(parsed.text.includes('Page 1 of 1'));
    for (const label of [
      'Pos.',
      'Description',
      'Quantity',
      'Unit price',
      'VAT',
      'Total net',
      'Total gross',
    ]) {
      assert.ok(parsed.text.includes(label), label);
    }
    // Seller bank details and VAT id in the footer.
    assert.ok(parsed.text.includes('IBAN DE89 3704 0044 0532 0130 00'));
    assert.ok(parsed.text.includes('BIC COBADEFFXXX'));
    assert.ok(parsed.text.includes('VAT ID DE123456789'));

    const xml = facturX(parsed);
    assert.equal(XMLValidator.validate(xml), true);
    const tree = xmlParser.parse(xml)['rsm:CrossIndustryInvoice'];
    assert.equal(tree['rsm:ExchangedDocument']['ram:ID'], 'INV-2025-0107');
    const sums =
      tree['rsm:SupplyChainTradeTransaction']['ram:ApplicableHeaderTradeSettlement'][
        'ram:SpecifiedTradeSettlementHeaderMonetarySummation'
      ];
    assert.equal(sums['ram:GrandTotalAmount'], doc.gross_total);
  });

  it('is PDF/A-3b with embedded fonts only and the Factur-X XMP and associated file', async () => {
    const buf = await renderDocumentPdf(sampleDocument({ lines: 2 }));
    const raw = buf.toString('latin1');
    assert.match(raw, /<pdfaid:part>3<\/pdfaid:part>/);
    assert.match(raw, /<pdfaid:conformance>B<\/pdfaid:conformance>/);
    assert.match(raw, /<fx:DocumentType>INVOICE<\/fx:DocumentType>/);
    assert.match(raw, /<fx:DocumentFileName>factur-x\.xml<\/fx:DocumentFileName>/);
    assert.match(raw, /<fx:Version>1\.0<\/fx:Version>/);
    assert.match(raw, /<fx:ConformanceLevel>EN 16931<\/fx:ConformanceLevel>/);
    assert.match(raw, /<pdfaSchema:prefix>fx<\/pdfaSchema:prefix>/);
    assert.match(raw, /\/AFRelationship \/Alternative/);
    assert.match(raw, /\/Subtype \/text#2fxml/i);
    assert.match(raw, /\/AF \[\d+ 0 R\]/);
    assert.match(raw, /\/OutputIntents/);
    // Every font is an embedded TrueType subset; the non-embeddable standard 14 never appear.
    assert.doesNotMatch(raw, /\/BaseFont \/(Helvetica|Times|Courier)/);
    assert.equal((raw.match(/\/FontFile2 /g) ?? []).length, 2);
    // Special characters in the Info/XMP title stay well-formed XML.
    assert.ok(buf.toString('utf8').includes('Müller &#38; Söhne'), 'XMP metadata is UTF-8 and escaped');
  });

  it('keeps the Info dictionary and the XMP metadata identical (PDF/A), also for & < and €', async () => {
    const doc = sampleDocument({ lines: 1 });
    doc.seller.name = 'Huber & <Partner> – 5 € Studio';
    const pdf = await getDocument({ data: new Uint8Array(await renderDocumentPdf(doc)), verbosity: 0 })
      .promise;
    try {
      const { info, metadata } = (await pdf.getMetadata()) as { info: Record<string, string>; metadata: any };
      assert.equal(info['Author'], 'Huber & <Partner> – 5 € Studio');
      assert.equal(info['Title'], 'Rechnung RE-2025-0042');
      assert.equal(metadata.get('dc:creator')?.[0] ?? metadata.get('dc:creator'), info['Author']);
      assert.equal(metadata.get('dc:title'), info['Title']);
      assert.equal(metadata.get('pdfaid:part'), '3');
    } finally {
      await pdf.destroy();
    }
  });

  it('breaks 60 positions across pages with the table header repeated and "Page x of y"', async () => {
    const doc = sampleDocument({ lines: 60, language: 'en' });
    const parsed = await parse(await renderDocumentPdf(doc));
    const count = parsed.pages.length;
    assert.ok(count >= 3, `expected at least 3 pages, got ${count}`);
    parsed.pages.forEach((page, i) => {
      assert.ok(page.includes(`Page ${i + 1} of ${count}`), `page number on page ${i + 1}`);
      assert.ok(page.includes('Unit price'), `table header on page ${i + 1}`);
      assert.ok(page.includes('IBAN'), `footer on page ${i + 1}`);
    });
    assert.ok(parsed.pages[1]!.includes(`Invoice ${doc.number}`), 'running header names the document');
    // Every position appears exactly once, in order, and the totals come last.
    const positions = [
      ...parsed.text.matchAll(/(?:^| )(\d{1,2}) (?:Konzeption|Frontend|Projektmanagement|Fachbuch|Hosting)/g),
    ].map((m) => Number(m[1]));
    assert.deepEqual(
      positions,
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    assert.ok(parsed.pages[count - 1]!.includes(money(doc, doc.gross_total)));
  });

  it('renders a credit note with negative amounts; its XML is a 381 with positive amounts', async () => {
    const doc = sampleDocument({
      lines: 2,
      kind: 'credit',
      language: 'en',
      negative: true,
      number: 'CN-2025-0003',
    });
    assert.ok(doc.gross_total.startsWith('-'));
    const parsed = await parse(await renderDocumentPdf(doc));
    assert.match(parsed.text, /Credit note CN-2025-0003/);
    assert.ok(parsed.text.includes(money(doc, doc.gross_total)), `shows ${money(doc, doc.gross_total)}`);
    assert.match(money(doc, doc.gross_total), /^-€/);
    const xml = facturX(parsed);
    assert.match(xml, /<ram:TypeCode>381<\/ram:TypeCode>/);
    assert.ok(xml.includes(`<ram:GrandTotalAmount>${doc.gross_total.slice(1)}</ram:GrandTotalAmount>`));
    assert.doesNotMatch(xml, /<ram:(ChargeAmount|LineTotalAmount|GrandTotalAmount)>-/);
  });

  it('prints German labels with umlauts, ß and € amounts (1.234,56 €)', async () => {
    const doc = sampleDocument({ lines: 5, language: 'de' });
    const parsed = await parse(await renderDocumentPdf(doc));
    for (const text of [
      'Rechnung RE-2025-0042',
      'Fällig am',
      'Leistungszeitraum',
      '01.02.2025 – 28.02.2025',
      'Frontend-Entwicklung (Übersicht, Größen, Maße)',
      'Fachbuch „Barrierefreiheit“',
      'USt-IdNr. DE123456789',
      'Seite 1 von 1',
      'Mit freundlichen Grüßen',
      'Gesamtbetrag',
    ]) {
      assert.ok(parsed.text.includes(text), text);
    }
    assert.equal(money(doc, '1234.56'), '1.234,56 €');
    assert.ok(parsed.text.includes(money(doc, doc.gross_total)), `gross ${money(doc, doc.gross_total)}`);
    assert.ok(parsed.text.includes('USt. 7 % auf'), 'tax breakdown per rate');
    assert.ok(parsed.text.includes('10 %'), 'line discount');
  });

  it('shows deductions and the amount due on a final invoice; XML states them as prepaid', async () => {
    const doc = sampleDocument({
      lines: 4,
      kind: 'final',
      language: 'de',
      number: 'RE-2025-0050',
      deductions: [
        { title: 'Abschlagsrechnung', number: 'RE-2025-0031', net: '1000.00', rate: '19' },
        { title: 'Abschlagsrechnung', number: 'RE-2025-0036', net: '500.00', rate: '19' },
      ],
    });
    assert.equal(doc.deductions?.[0]?.gross, '1190.00');
    const parsed = await parse(await renderDocumentPdf(doc));
    assert.match(parsed.text, /Schlussrechnung RE-2025-0050/);
    assert.ok(parsed.text.includes('abzüglich Abschlagsrechnung RE-2025-0031'));
    assert.ok(parsed.text.includes(money(doc, '-1190.00')));
    assert.ok(parsed.text.includes(money(doc, '-595.00')));
    assert.ok(parsed.text.includes('Zahlbetrag'));
    assert.ok(parsed.text.includes(money(doc, doc.amount_due!)), `due ${money(doc, doc.amount_due!)}`);
    const xml = facturX(parsed);
    assert.ok(xml.includes(`<ram:GrandTotalAmount>${doc.gross_total}</ram:GrandTotalAmount>`));
    assert.ok(xml.includes('<ram:TotalPrepaidAmount>1785.00</ram:TotalPrepaidAmount>'));
    assert.ok(xml.includes(`<ram:DuePayableAmount>${doc.amount_due}</ram:DuePayableAmount>`));
  });

  it('marks a draft (no number) and embeds no XML; booked offers embed none either', async () => {
    const draft = sampleDocument({ lines: 2, number: null, booked: false, language: 'de' });
    const parsedDraft = await parse(await renderDocumentPdf(draft));
    assert.ok(parsedDraft.text.includes('Rechnung (Entwurf)'));
    assert.ok(parsedDraft.text.includes('ENTWURF'), 'watermark');
    assert.equal(parsedDraft.attachments, null);

    const offer = sampleDocument({
      lines: 2,
      kind: 'offer',
      number: 'AN-2025-0009',
      booked: true,
      language: 'en',
    });
    const parsedOffer = await parse(await renderDocumentPdf(offer));
    assert.match(parsedOffer.text, /Offer AN-2025-0009/);
    assert.ok(parsedOffer.text.includes('Offer no.'));
    assert.ok(parsedOffer.text.includes('Valid until'));
    assert.equal(parsedOffer.attachments, null);

    const unbooked = sampleDocument({ lines: 2, booked: false });
    assert.equal((await parse(await renderDocumentPdf(unbooked))).attachments, null);
  });

  it('keeps a very long description across pages and prints exemption notes for 0 %', async () => {
    const doc = sampleDocument({ lines: 1, language: 'en' });
    const paragraph = 'Sprint review, backlog grooming and stakeholder alignment for the relaunch. '.repeat(
      6,
    );
    doc.lines[0]!.description = Array.from({ length: 30 }, (_, i) => `Week ${i + 1}: ${paragraph}`).join(
      '\n\n',
    );
    doc.lines[0]!.tax_rate = '0';
    doc.taxes = [{ rate: '0', net: doc.net_total, tax: '0.00', category: 'AE' }];
    doc.tax_total = '0.00';
    doc.gross_total = doc.net_total;
    doc.amount_due = doc.net_total;
    const parsed = await parse(await renderDocumentPdf(doc));
    assert.ok(parsed.pages.length >= 3);
    assert.ok(parsed.text.includes('Week 30:'));
    assert.ok(parsed.text.includes('Reverse charge: VAT is owed by the recipient.'));
    const xml = facturX(parsed);
    assert.match(xml, /<ram:CategoryCode>AE<\/ram:CategoryCode>/);
  });

  it('renders a minimal document without optional fields, and replaces glyphs the font lacks', async () => {
    const doc: PdfDocument = {
      kind: 'invoice',
      title: 'Invoice',
      number: 'INV-1',
      date: '2025-01-31',
      currency: 'USD',
      seller: { name: 'Solo Studio' },
      buyer: { name: 'Acme 🚀 Corp\tLtd' },
      lines: [
        {
          position: 1,
          title: 'Logo design 設計',
          quantity: '1',
          unit_price: '500.00',
          tax_rate: '0',
          net_total: '500.00',
        },
      ],
      taxes: [{ rate: '0', net: '500.00', tax: '0.00' }],
      net_total: '500.00',
      tax_total: '0.00',
      gross_total: '500.00',
      booked: true,
    };
    const parsed = await parse(await renderDocumentPdf(doc));
    assert.ok(parsed.text.includes('Invoice INV-1'));
    assert.ok(parsed.text.includes('Acme ? Corp Ltd'), parsed.text);
    assert.ok(parsed.text.includes('Logo design ??'));
    assert.ok(parsed.text.includes('US$500.00'));
    assert.ok(parsed.text.includes('Exempt from VAT.'));
    const tree = xmlParser.parse(facturX(parsed))['rsm:CrossIndustryInvoice'];
    const buyer =
      tree['rsm:SupplyChainTradeTransaction']['ram:ApplicableHeaderTradeAgreement']['ram:BuyerTradeParty'];
    assert.equal(buyer['ram:Name'], 'Acme 🚀 Corp\tLtd', 'the XML keeps the exact text');
    assert.equal(buyer['ram:PostalTradeAddress']['ram:CountryID'], 'DE', 'country falls back to a default');
  });

  it('refuses to embed an e-invoice whose totals do not add up', async () => {
    const doc = sampleDocument({ lines: 2 });
    doc.gross_total = '1.00';
    await assert.rejects(renderDocumentPdf(doc), /totals are inconsistent/);
    // The same mistake on a draft still renders: nothing is embedded there.
    await renderDocumentPdf({ ...doc, booked: false });
  });
});
