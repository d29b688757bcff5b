import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { importData } from '../src/import/index.js';
import { renderDocumentPdf } from '../src/shared/pdf/render.js';
import { type Api, describeEachDb, expectProblem } from './helpers.js';
import { bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

// No probe that turns a broken renderer into skipped tests: rendering is part of the product,
// so a renderer that throws fails here, with its error.
it('the renderer makes a PDF of a minimal document', async () => {
  const bytes = await renderDocumentPdf({
    kind: 'invoice',
    title: 'Invoice',
    number: null,
    date: null,
    currency: 'EUR',
    seller: { name: 'S' },
    buyer: { name: 'B' },
    lines: [],
    taxes: [],
    net_total: '0.00',
    tax_total: '0.00',
    gross_total: '0.00',
    booked: false,
  });
  assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
});

async function parsePdf(bytes: Buffer) {
  assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
  const doc = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false }).promise;
  let text = '';
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    text += `${content.items.map((it) => ('str' in it ? it.str : '')).join(' ')}\n`;
  }
  const attachments = ((await doc.getAttachments()) ?? {}) as Record<string, unknown>;
  await doc.destroy();
  return { text, compact: text.replace(/\s+/g, ''), attachments: Object.keys(attachments) };
}

describeEachDb('document PDFs', (ctx) => {
  let api: Api;
  let clientId: number;

  before(async () => {
    await importData(
      ctx.db,
      {
        clients: [
          { key: 'c', name: 'PDF Client GmbH', street: 'Hafenstraße 1', zip: '20457', city: 'Hamburg' },
        ],
        contacts: [{ key: 'mira', first_name: 'Mira', last_name: 'Schulz' }],
        offers: [
          {
            offer_number: 'AN-2026-0042',
            client: 'c',
            contact: 'mira',
            line_items: [{ title: 'Workshop', quantity: 2, unit_price: 450, tax_rate: 19 }],
          },
        ],
      },
      { accountId: ctx.account.accountId },
    );
    api = await ctx.as(
      'outgoing-invoice:read outgoing-invoice:write outgoing-invoice:book client:write offer:read',
    );
    clientId = await makeClient(api, { name: 'Recipient AG', city: 'Köln', payment_term_days: 14 });
  });

  const download = (path: string, headers: Record<string, string> = {}) =>
    ctx.app.inject({ url: `/api/v1${path}`, headers: { authorization: `Bearer ${api.token}`, ...headers } });

  it('a booked invoice: a valid PDF with number and gross total, the EN 16931 XML, byte-identical on every download', async () => {
    const inv = await makeInvoice(api, {
      client_id: clientId,
      line_items: [line(33.33), line(33.33), line(33.33)],
    });
    const booked = await bookNow(api, inv.id);
    // Renaming the client after booking does not change the booked document.
    await api.patch(`/clients/${clientId}`, { name: 'Renamed Recipient AG' });
    const res = await download(`/outgoing-invoices/${inv.id}/pdf`);
    await api.patch(`/clients/${clientId}`, { name: 'Recipient AG' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/pdf');
    assert.match(String(res.headers['content-disposition']), new RegExp(booked.invoice_number));
    const pdf = await parsePdf(res.rawPayload);
    assert.ok(pdf.compact.includes(booked.invoice_number), 'shows the invoice number');
    assert.match(pdf.compact, /118[.,]99/, 'shows the gross total');
    assert.match(pdf.text, /Recipient AG/);
    assert.doesNotMatch(pdf.text, /Renamed/);
    assert.ok(
      pdf.attachments.some((name) => /\.xml$/i.test(name)),
      `embeds the XML (attachments: ${pdf.attachments.join(', ')})`,
    );
    const again = await download(`/outgoing-invoices/${inv.id}/pdf`);
    assert.deepEqual(again.rawPayload, res.rawPayload);
    assert.equal(again.headers.etag, res.headers.etag);
    const cached = await download(`/outgoing-invoices/${inv.id}/pdf`, {
      'if-none-match': String(res.headers.etag),
    });
    assert.equal(cached.statusCode, 304);
  });

  it('a draft invoice renders without the XML; a credit and a final invoice render too', async () => {
    const draft = await makeInvoice(api, {
      client_id: clientId,
      line_items: [line(100, { quantity: 1.5, unit: 'h' })],
    });
    const pdf = await parsePdf((await download(`/outgoing-invoices/${draft.id}/pdf`)).rawPayload);
    assert.match(pdf.compact, /178[.,]50/);
    assert.deepEqual(
      pdf.attachments.filter((n) => /\.xml$/i.test(n)),
      [],
    );
    const credit = await makeInvoice(api, { type: 'credit', client_id: clientId, line_items: [line(-50)] });
    const bookedCredit = await bookNow(api, credit.id);
    const creditPdf = await parsePdf((await download(`/outgoing-invoices/${credit.id}/pdf`)).rawPayload);
    assert.ok(creditPdf.compact.includes(bookedCredit.invoice_number));
    const plan = (
      await api.post('/outgoing-invoices/partial-plans', { client_id: clientId, line_items: [line(1000)] })
    ).body.data;
    const deposit = (
      await api.post(`/outgoing-invoices/${plan.id}/plan-invoices`, { type: 'deposit', value: 400 })
    ).body.data;
    await bookNow(api, deposit.id);
    const final = await bookNow(api, plan.final_invoice_id);
    const finalPdf = await parsePdf((await download(`/outgoing-invoices/${final.id}/pdf`)).rawPayload);
    assert.ok(finalPdf.compact.includes(final.invoice_number));
    assert.match(finalPdf.compact, /714[.,]00/, 'the amount still due after the deposit');
  });

  it('an offer renders with its number and gross total', async () => {
    const offer = (await api.get('/offers')).body.data[0];
    const res = await download(`/offers/${offer.id}/pdf`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/pdf');
    const pdf = await parsePdf(res.rawPayload);
    assert.ok(pdf.compact.includes('AN-2026-0042'));
    assert.match(pdf.text, /Mira Schulz/, 'addressed to the contact');
    assert.match(pdf.compact, /1[.,]?071[.,]00/);
  });

  it('plan masters have no PDF (422); unknown ids are 404; the scope is outgoing-invoice:read', async () => {
    const created = await api.post('/outgoing-invoices/partial-plans', {
      client_id: clientId,
      line_items: [line(1)],
    });
    assert.equal(created.status, 201, created.text);
    const plan = created.body.data;
    expectProblem(await api.get(`/outgoing-invoices/${plan.id}/pdf`), 422, 'unprocessable');
    expectProblem(await api.get('/outgoing-invoices/999999/pdf'), 404);
    expectProblem(await api.get('/offers/999999/pdf'), 404);
    const offerOnly = await ctx.as('offer:read');
    assert.deepEqual(
      expectProblem(await offerOnly.get(`/outgoing-invoices/${plan.final_invoice_id}/pdf`), 403)
        .required_scopes,
      ['outgoing-invoice:read'],
    );
  });
});
