import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { ExtractionOutcome } from '../src/modules/incoming-invoices/extraction.model.js';
import { applyExtraction } from '../src/modules/incoming-invoices/incoming-invoices.service.js';
import { type Api, countRows, describeEachDb, expectProblem, multipart } from './helpers.js';
import { cii, makePdf, truthOf, UBL_CREDIT_NOTE, ZUGFERD1 } from './incoming-einvoices.fixtures.js';

const codes = (d: { extraction: { warnings: { code: string }[] } }) =>
  d.extraction.warnings.map((w) => w.code);

describeEachDb(
  'incoming e-invoices',
  (ctx) => {
    let writer: Api;

    before(async () => {
      writer = await ctx.as('incoming-invoice:write incoming-invoice:read');
    });

    const upload = async (file: Buffer | string, type: string, data?: unknown, name = 'document') => {
      const form = await multipart(
        { name, type, data: file },
        data === undefined ? {} : { data: JSON.stringify(data) },
      );
      return writer.request('POST', '/incoming-invoices', form.body, form.headers);
    };
    const created = async (...args: Parameters<typeof upload>) => {
      const res = await upload(...args);
      assert.equal(res.status, 201, res.text);
      return res.body.data;
    };

    it('reads ZUGFeRD 1.0 (file and PDF attachment ZUGFeRD-invoice.xml)', async () => {
      const pdf = await makePdf(
        ['Rechnung 471102'],
        [{ name: 'ZUGFeRD-invoice.xml', data: Buffer.from(ZUGFERD1) }],
      );
      for (const d of [await created(ZUGFERD1, 'text/xml'), await created(pdf, 'application/pdf')]) {
        assert.equal(d.extraction.method, 'zugferd1');
        assert.equal(d.invoice_number, '471102');
        assert.equal(d.date, '2013-03-05');
        assert.equal(d.due_date, '2013-04-04');
        assert.equal(d.delivery_date, '2013-03-01');
        assert.equal(d.gross_total, 529.87);
        assert.equal(d.net_total, 473);
        assert.equal(d.tax_total, 56.87);
        assert.equal(d.prepaid_total, 29.87);
        assert.equal(d.amount_due, 500);
        assert.equal(d.supplier_name, 'Lieferant GmbH');
        assert.equal(d.supplier_street, 'Lieferantenstraße 20');
        assert.equal(d.supplier_postcode, '80333');
        assert.equal(d.supplier_city, 'München');
        assert.equal(d.supplier_vat_id, 'DE123456789');
        assert.equal(d.supplier_tax_number, '201/113/40209');
        assert.equal(d.iban, 'DE08700901001234567890');
        assert.equal(d.bic, 'GENODEF1M04');
        assert.equal(d.payment_reference, '2013-471102');
        assert.equal(d.buyer_reference, 'AB-312');
        assert.deepEqual(d.taxes, [
          { rate: 19, net: 198, tax: 37.62, category: 'S' },
          { rate: 7, net: 275, tax: 19.25, category: 'S' },
        ]);
        assert.deepEqual(d.line_items, [
          {
            title: 'Trennblätter A4',
            quantity: 20,
            unit: 'C62',
            unit_price: 9.9,
            net_total: 198,
            tax_rate: 19,
          },
        ]);
        assert.deepEqual(d.extraction.warnings, []);
      }
    });

    it('finds the XML in a PDF under any attachment name, or only among its associated files (/AF)', async () => {
      const xml = Buffer.from(UBL_CREDIT_NOTE);
      const truth = truthOf(xml.toString());
      for (const attachment of [
        { name: 'rechnung-4711.xml', data: xml },
        { name: 'xrechnung.xml', data: xml, hidden: true },
      ]) {
        const pdf = await makePdf(['Invoice, see the attached XML'], [attachment]);
        const d = await created(pdf, 'application/octet-stream');
        assert.equal(d.extraction.method, 'ubl', attachment.name);
        assert.equal(d.invoice_number, truth.number);
        assert.equal(d.gross_total, truth.gross);
      }
    });

    it('a UBL CreditNote, a 381 type code and an invoice with negative totals are credits with positive amounts', async () => {
      const note = await created(UBL_CREDIT_NOTE, 'application/octet-stream');
      assert.equal(note.document_type, 'Credit');
      assert.equal(note.gross_total, 119);
      assert.equal(note.supplier_name, 'Gutschrift & Co KG');
      assert.equal(note.line_items[0].quantity, 2);
      assert.equal(note.line_items[0].unit, 'HUR');
      assert.equal(note.iban, 'DE89370400440532013000');
      assert.equal(note.bic, 'COBADEFFXXX');
      assert.ok(note.extracted_fields.includes('document_type'));
      const typed = await created(
        cii({ number: 'C-381', type: '381', net: '10.00', tax: '1.90', gross: '11.90' }),
        'application/xml',
      );
      assert.equal(typed.document_type, 'Credit');
      assert.equal(typed.gross_total, 11.9);
      const negative = await created(
        cii({ number: 'C-NEG', net: '-10.00', tax: '-1.90', gross: '-11.90' }),
        'application/xml',
      );
      assert.equal(negative.document_type, 'Credit');
      assert.deepEqual([negative.net_total, negative.tax_total, negative.gross_total], [10, 1.9, 11.9]);
      assert.deepEqual(codes(negative), []);
    });

    it('totals that do not add up are stored as read, flagged totals_inconsistent (never a 422)', async () => {
      const d = await created(
        cii({ number: 'BAD-SUM', net: '100.00', tax: '19.00', gross: '120.00' }),
        'application/xml',
      );
      assert.deepEqual([d.net_total, d.tax_total, d.gross_total], [100, 19, 120]);
      assert.deepEqual(codes(d), ['totals_inconsistent']);
      assert.ok(d.file_id);
    });

    it('an IBAN that fails its check is not stored (invalid_value); the rest is', async () => {
      const d = await created(
        cii({ number: 'BAD-IBAN', net: '1.00', tax: '0.19', gross: '1.19', iban: 'DE89370400440532013001' }),
        'application/xml',
      );
      assert.equal(d.iban, null);
      assert.equal(d.invoice_number, 'BAD-IBAN');
      assert.deepEqual(
        d.extraction.warnings.map((w: { code: string; field?: string }) => [w.code, w.field]),
        [['invalid_value', 'iban']],
      );
    });

    it('XML that is no invoice, truncated XML and unknown bytes are stored with a warning and no values', async () => {
      const truncated = cii({ number: 'T-1', net: '10.00', tax: '1.90', gross: '11.90' }).slice(0, 900);
      for (const [file, type, code] of [
        ['<?xml version="1.0"?><note><to>Tove</to></note>', 'application/xml', 'not_an_invoice'],
        [truncated, 'application/octet-stream', 'malformed_xml'],
        [Buffer.from([0, 1, 2, 3, 4, 5]), 'application/octet-stream', 'unsupported_format'],
      ] as const) {
        const d = await created(file, type);
        assert.deepEqual(codes(d), [code]);
        assert.deepEqual(d.extracted_fields, []);
        assert.equal(d.invoice_number, null);
        assert.equal(d.document_type, 'Invoice', 'the column default, not claimed as read');
        assert.equal(d.extraction.fields.document_type, undefined);
      }
    });

    it('a PDF page without text is pending OCR (no_text_layer)', async () => {
      const pdf = await makePdf([null]);
      const res = await upload(pdf, 'application/pdf');
      assert.equal(res.status, 202, res.text);
      const d = res.body.data;
      assert.equal(d.extraction.status, 'pending');
      assert.equal(d.gross_total, null);
      assert.deepEqual(codes(d), ['no_text_layer']);
    });

    it('explicit fields win over extracted ones and are validated; the extraction says they came from the request', async () => {
      const xml = cii({ number: 'X-336', net: '336.00', tax: '63.84', gross: '399.84' });
      const d = await created(xml, 'application/xml', {
        invoice_number: 'MINE-7',
        iban: 'DE89 3704 0044 0532 0130 00',
        gross_total: 400,
        tax_total: 0,
      });
      assert.equal(d.invoice_number, 'MINE-7');
      assert.equal(d.iban, 'DE89370400440532013000');
      assert.deepEqual([d.net_total, d.tax_total, d.gross_total], [400, 0, 400]);
      assert.deepEqual(d.extraction.fields.invoice_number, { source: 'request', confidence: 1 });
      assert.deepEqual(d.extraction.fields.gross_total, { source: 'request', confidence: 1 });
      assert.ok(!d.extracted_fields.includes('net_total'));
      assert.ok(d.extracted_fields.includes('date'));
      const before = await countRows(ctx.db, 'incoming_invoices');
      for (const [field, value] of [
        ['iban', 'DE89370400440532013001'],
        ['bic', 'NOTABIC'],
        ['supplier_vat_id', 'DE12345'],
        ['supplier_country', 'Germany'],
      ] as const) {
        const p = expectProblem(await upload(xml, 'application/xml', { [field]: value }), 422);
        assert.deepEqual(
          p.errors!.map((e) => e.field),
          [field],
        );
      }
      const period = expectProblem(
        await writer.post('/incoming-invoices', {
          service_period_start: '2026-02-01',
          service_period_end: '2026-01-31',
        }),
        422,
      );
      assert.deepEqual(
        period.errors!.map((e) => e.field),
        ['service_period_end'],
      );
      assert.equal(await countRows(ctx.db, 'incoming_invoices'), before);
    });

    it('the new fields are writable by JSON and PATCH; a later extraction keeps what the clerk wrote', async () => {
      const res = await writer.post('/incoming-invoices', {
        gross_total: 119,
        tax_total: 19,
        amount_due: 100,
        prepaid_total: 19,
        taxes: [{ rate: 19, net: 100, tax: 19, category: 'S' }],
        line_items: [
          { title: 'Toner', quantity: 2, unit: 'C62', unit_price: 50, net_total: 100, tax_rate: 19 },
        ],
        supplier_country: 'AT',
        supplier_vat_id: 'ATU12345678',
      });
      assert.equal(res.status, 201, res.text);
      const id = res.body.data.id;
      assert.equal(res.body.data.extraction.status, 'skipped');
      assert.deepEqual(res.body.data.taxes, [{ rate: 19, net: 100, tax: 19, category: 'S' }]);
      const patched = await writer.patch(`/incoming-invoices/${id}`, {
        payment_reference: 'RF18 5390 0754 7034',
        bic: 'COBADEFF',
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.data.bic, 'COBADEFF');
      expectProblem(await writer.patch(`/incoming-invoices/${id}`, { iban: 'DE00' }), 422);
      const outcome: ExtractionOutcome = {
        fields: {
          invoice_number: 'OCR-1',
          bic: 'GENODEF1M04',
          gross_total: '119.00',
          supplier_vat_id: 'DE123456789',
        },
        provenance: {
          invoice_number: { source: 'ocr', confidence: 0.8 },
          bic: { source: 'ocr', confidence: 0.9 },
          gross_total: { source: 'ocr', confidence: 0.9 },
          supplier_vat_id: { source: 'ocr', confidence: 0.9 },
        },
        warnings: [],
        method: 'ocr',
      };
      await applyExtraction(ctx.db, ctx.account.accountId, id, outcome);
      const d = (await writer.get(`/incoming-invoices/${id}`)).body.data;
      assert.equal(d.invoice_number, 'OCR-1');
      assert.deepEqual(d.extraction.fields.invoice_number, { source: 'ocr', confidence: 0.8 });
      assert.equal(d.bic, 'COBADEFF', 'the clerk wrote it');
      assert.equal(d.supplier_vat_id, 'ATU12345678', 'the request set it');
      assert.equal(d.gross_total, 119);
      assert.deepEqual(d.extraction.fields.gross_total, { source: 'request', confidence: 1 });
      assert.equal(d.extraction.status, 'done');
      assert.equal(d.extraction.method, 'ocr');
    });
  },
  // A cold thread loads pdf.js first: on a loaded machine that alone can pass the default 10 s.
  { config: { extractionTimeoutMs: 60_000 } },
);

describeEachDb(
  'incoming e-invoices: page cap',
  (ctx) => {
    it('pages beyond EXTRACTION_MAX_PAGES are not read (pages_truncated)', async () => {
      const writer = await ctx.as('incoming-invoice:write incoming-invoice:read');
      const pdf = await makePdf(['Rechnung Seite 1', 'Seite 2', 'Seite 3']);
      const form = await multipart({ name: 'long.pdf', type: 'application/pdf', data: pdf });
      const res = await writer.request('POST', '/incoming-invoices', form.body, form.headers);
      assert.equal(res.status, 201, res.text);
      assert.ok(codes(res.body.data).includes('pages_truncated'), res.text);
    });
  },
  // A cold thread loads pdf.js first: on a loaded machine that alone can pass the default 10 s.
  { config: { extractionMaxPages: 2, extractionTimeoutMs: 60_000 } },
);
