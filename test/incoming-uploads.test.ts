import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, it } from 'node:test';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { renderDocumentPdf } from '../src/shared/pdf/render.js';
import { sampleDocument } from '../src/shared/pdf/sample.js';
import { type Api, countRows, describeEachDb, expectProblem, multipart } from './helpers.js';
import { type ChartIds, seedChart } from './incoming.fixtures.js';

/** The XML embedded in a Factur-X PDF, read independently of the code under test. */
async function embeddedXml(pdf: Buffer): Promise<string> {
  const doc = await getDocument({ data: new Uint8Array(pdf), verbosity: 0 }).promise;
  try {
    const files = (await doc.getAttachments()) as Record<string, { content: Uint8Array }>;
    return new TextDecoder().decode(files['factur-x.xml']!.content);
  } finally {
    await doc.destroy();
  }
}
const tag = (xml: string, name: string) => new RegExp(`<ram:${name}[^>]*>([^<]+)<`).exec(xml)![1]!;

describeEachDb('incoming invoice uploads', (ctx) => {
  let writer: Api;
  let reader: Api;
  let other: Api;
  let chart: ChartIds;
  let facturX: Buffer;
  let plainPdf: Buffer;
  let xml: string;

  before(async () => {
    chart = await seedChart(ctx);
    writer = await ctx.as('incoming-invoice:write incoming-invoice:read');
    reader = await ctx.as('incoming-invoice:read');
    other = await ctx.as('incoming-invoice:write incoming-invoice:read', { accountId: ctx.other.accountId });
    facturX = await renderDocumentPdf(sampleDocument({ booked: true, number: 'NL-2025-0815' }));
    plainPdf = await renderDocumentPdf(sampleDocument({ booked: false, number: 'RE-2025-0042' }));
    xml = await embeddedXml(facturX);
  });

  const upload = async (file: Buffer, data?: unknown, name = 'invoice.pdf', type = 'application/pdf') => {
    const form = await multipart(
      { name, type, data: file },
      data === undefined ? {} : { data: JSON.stringify(data) },
    );
    return writer.request('POST', '/incoming-invoices', form.body, form.headers);
  };

  it('extracts a Factur-X PDF exactly as its embedded XML says; explicit fields win', async () => {
    const supplier = await writer.post('/suppliers', {
      name: 'Nordlicht Digital GmbH',
      vat_id: 'DE 123456789',
      chart_of_account_id: chart.office,
    });
    const res = await upload(facturX, { description: 'Website relaunch', due_date: '2025-04-30' });
    assert.equal(res.status, 201, res.text);
    const d = res.body.data;
    const head = /<rsm:ExchangedDocument>([\s\S]*?)<\/rsm:ExchangedDocument>/.exec(xml)![1]!;
    assert.equal(d.invoice_number, tag(head, 'ID'));
    assert.equal(d.invoice_number, 'NL-2025-0815');
    const issued = /format="102">(\d{4})(\d{2})(\d{2})</.exec(head)!;
    assert.equal(d.date, `${issued[1]}-${issued[2]}-${issued[3]}`);
    assert.equal(d.net_total, Number(tag(xml, 'TaxBasisTotalAmount')));
    assert.equal(d.tax_total, Number(tag(xml, 'TaxTotalAmount')));
    assert.equal(d.gross_total, Number(tag(xml, 'GrandTotalAmount')));
    assert.equal(d.currency, tag(xml, 'InvoiceCurrencyCode'));
    assert.equal(d.supplier_name, 'Nordlicht Digital GmbH');
    assert.equal(d.supplier_vat_id, 'DE123456789');
    assert.equal(d.supplier_id, supplier.body.data.id, 'matched by VAT id');
    assert.equal(d.due_date, '2025-04-30', 'explicit value wins');
    assert.equal(d.description, 'Website relaunch');
    assert.ok(!d.extracted_fields.includes('due_date'));
    assert.deepEqual(d.extracted_fields, [
      'amount_due',
      'bic',
      'currency',
      'date',
      'document_type',
      'gross_total',
      'iban',
      'invoice_number',
      'line_items',
      'net_total',
      'payment_reference',
      'service_period_end',
      'service_period_start',
      'supplier_city',
      'supplier_country',
      'supplier_id',
      'supplier_name',
      'supplier_postcode',
      'supplier_street',
      'supplier_tax_number',
      'supplier_vat_id',
      'tax_total',
      'taxes',
    ]);
    assert.equal(d.extraction.status, 'done');
    assert.equal(d.extraction.method, 'cii');
    assert.deepEqual(d.extraction.warnings, []);
    assert.deepEqual(d.extraction.fields.gross_total, { source: 'xml', confidence: 1 });
    assert.deepEqual(d.extraction.fields.due_date, { source: 'request', confidence: 1 });
    assert.equal(d.amount_due, Number(tag(xml, 'DuePayableAmount')));
    assert.equal(d.file_md5, createHash('md5').update(facturX).digest('hex'));
    assert.equal(d.file_was_preprocessed, false);
    const file = await reader.get(`/files/${d.file_id}`);
    assert.equal(file.status, 200);
    assert.equal(file.body.data.owner_type, 'incoming_invoice');
    assert.equal(file.body.data.owner_id, d.id);
  });

  it('explicit totals and number override the extracted ones', async () => {
    const res = await upload(facturX, {
      invoice_number: 'MINE-1',
      gross_total: 100,
      tax_total: 0,
      bookings: [{ amount: 100, chart_of_account_id: chart.office }],
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.invoice_number, 'MINE-1');
    assert.equal(res.body.data.gross_total, 100);
    assert.equal(res.body.data.net_total, 100);
    assert.ok(!res.body.data.extracted_fields.includes('gross_total'));
    assert.ok(res.body.data.extracted_fields.includes('date'));
    assert.equal(res.body.data.bookings.length, 1);
  });

  it('reads the text layer of a PDF without XML; no extraction when preprocessed', async () => {
    const res = await upload(plainPdf);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.invoice_number, 'RE-2025-0042');
    assert.equal(res.body.data.date, '2025-03-14');
    assert.equal(res.body.data.gross_total, Number(sampleDocument().gross_total));
    assert.equal(res.body.data.supplier_vat_id, 'DE123456789', 'the seller’s, not the buyer’s');
    const pre = await upload(plainPdf, { file_was_preprocessed: true, invoice_number: 'P-1' });
    assert.equal(pre.status, 201);
    assert.equal(pre.body.data.file_was_preprocessed, true);
    assert.deepEqual(pre.body.data.extracted_fields, []);
    assert.equal(pre.body.data.gross_total, 0);
    assert.equal(pre.body.data.date, null);
    const image = await upload(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]),
      { description: 'scan' },
      'scan.png',
      'image/png',
    );
    // A scan is read by OCR after the request: accepted, totals not known yet.
    assert.equal(image.status, 202);
    assert.deepEqual(image.body.data.extracted_fields, []);
    assert.equal(image.body.data.gross_total, null);
  });

  it('422/415 on bad multipart bodies, nothing stored', async () => {
    const before = await countRows(ctx.db, 'incoming_invoices');
    const files = await countRows(ctx.db, 'files');
    const badJson = await multipart(
      { name: 'a.pdf', type: 'application/pdf', data: plainPdf },
      { data: '{nope' },
    );
    const p1 = expectProblem(
      await writer.request('POST', '/incoming-invoices', badJson.body, badJson.headers),
      422,
    );
    assert.deepEqual(
      p1.errors!.map((e) => e.field),
      ['data'],
    );
    const p2 = expectProblem(await upload(facturX, { gross_total: 'lots', document_type: 'Bill' }), 422);
    assert.deepEqual(p2.errors!.map((e) => e.field).sort(), ['document_type', 'gross_total']);
    expectProblem(
      await upload(facturX, { bookings: [{ chart_of_account_id: chart.office, amount: 99999 }] }),
      422,
    );
    const noFile = await multipart(null, { data: '{}' });
    expectProblem(await writer.request('POST', '/incoming-invoices', noFile.body, noFile.headers), 422);
    expectProblem(await upload(Buffer.from('<html>'), {}, 'x.html', 'text/html'), 415);
    assert.equal(await countRows(ctx.db, 'incoming_invoices'), before);
    assert.equal(await countRows(ctx.db, 'files'), files);
  });

  it('check-duplicate by file and by md5, per account', async () => {
    const unique = Buffer.concat([plainPdf, Buffer.from(`\n% ${ctx.kind} duplicate test\n`)]);
    const md5 = createHash('md5').update(unique).digest('hex');
    const check = async (api: Api, file: Buffer) => {
      const form = await multipart({ name: 'x.pdf', type: 'application/pdf', data: file });
      return api.request('POST', '/incoming-invoices/check-duplicate', form.body, form.headers);
    };
    const first = await check(reader, unique);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body.data, { duplicate: false, md5, matches: [] });
    const created = await upload(unique, { file_was_preprocessed: true });
    const byFile = await check(reader, unique);
    assert.equal(byFile.body.data.duplicate, true);
    assert.deepEqual(
      byFile.body.data.matches.map((m: { id: number }) => m.id),
      [created.body.data.id],
    );
    const byMd5 = await reader.post('/incoming-invoices/check-duplicate', { md5: md5.toUpperCase() });
    assert.equal(byMd5.status, 200);
    assert.equal(byMd5.body.data.duplicate, true);
    assert.equal(byMd5.body.data.matches[0].file_id, created.body.data.file_id);
    const otherCheck = await other.post('/incoming-invoices/check-duplicate', { md5 });
    assert.equal(otherCheck.body.data.duplicate, false);
    const bad = expectProblem(await reader.post('/incoming-invoices/check-duplicate', { md5: 'xyz' }), 422);
    assert.deepEqual(
      bad.errors!.map((e) => e.field),
      ['md5'],
    );
    expectProblem(await reader.post('/incoming-invoices/check-duplicate', {}), 422);
  });
});
