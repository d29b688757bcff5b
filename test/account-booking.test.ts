import assert from 'node:assert/strict';
import { it } from 'node:test';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { PNG } from './account.fixtures.js';
import { type Api, describeEachDb, multipart } from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

async function pdfBytes(api: Api, id: number): Promise<Buffer> {
  const res = await api.app.inject({
    url: `/api/v1/outgoing-invoices/${id}/pdf`,
    headers: { authorization: `Bearer ${api.token}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.rawPayload;
}

/** Whether the PDF draws an image (the logo: nothing else on an invoice is one). */
const hasImage = (pdf: Buffer) => pdf.includes('/Subtype /Image');

async function pdfText(api: Api, id: number): Promise<string> {
  const res = { rawPayload: await pdfBytes(api, id) };
  const doc = await getDocument({ data: new Uint8Array(res.rawPayload), isEvalSupported: false }).promise;
  let text = '';
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    text += `${content.items.map((it) => ('str' in it ? it.str : '')).join(' ')}\n`;
  }
  await doc.destroy();
  return text.replace(/\s+/g, ' ');
}

describeEachDb('company profile and booked invoices', (ctx) => {
  it('a booked invoice keeps the details it was booked with; the next booking prints the new profile', async () => {
    const api = await ctx.as([...ALL_INVOICE_SCOPES, 'account:read', 'account:write']);
    const client = await makeClient(api);
    const first = await makeInvoice(api, { client_id: client, line_items: [line(100)] });
    await bookNow(api, first.id);
    // The XML before anything is downloaded, the PDF after the change (rendered from what was frozen).
    const ublBefore = (await api.get(`/outgoing-invoices/${first.id}/xml`)).text;
    const ciiBefore = (await api.get(`/outgoing-invoices/${first.id}/xml?syntax=cii`)).text;
    assert.match(ublBefore, /DE02120300000000202051/);

    const changed = await api.patch('/account/profile', {
      name: 'Renamed Studio GmbH',
      street: 'Neue Allee 99',
      iban: 'DE89 3704 0044 0532 0130 00',
      invoice_intro_text: 'Thank you for working with us.',
      invoice_closing_text: 'Best regards from the new studio',
      payment_term_days: 21,
      payment_terms_text: 'Kindly transfer the amount by {due_date} ({days} days).',
    });
    assert.equal(changed.status, 200, changed.text);
    const logo = await multipart({ name: 'logo.png', type: 'image/png', data: PNG });
    assert.equal((await api.request('PUT', '/account/profile/logo', logo.body, logo.headers)).status, 200);

    assert.ok(!hasImage(await pdfBytes(api, first.id)), 'no logo on the invoice booked before it was set');
    const oldPdf = await pdfText(api, first.id);
    assert.match(oldPdf, /Test account \d+/);
    assert.match(oldPdf, /Teststraße 1/);
    assert.doesNotMatch(oldPdf, /Renamed Studio|Neue Allee|new studio|Kindly transfer/);
    assert.equal((await api.get(`/outgoing-invoices/${first.id}/xml`)).text, ublBefore, 'UBL unchanged');
    assert.equal(
      (await api.get(`/outgoing-invoices/${first.id}/xml?syntax=cii`)).text,
      ciiBefore,
      'CII unchanged',
    );
    const firstRead = (await api.get(`/outgoing-invoices/${first.id}`)).body.data;
    assert.match(firstRead.seller.name, /^Test account \d+$/, 'the frozen seller of the API answer too');
    assert.equal(firstRead.seller.street, 'Teststraße 1');

    const second = await makeInvoice(api, { client_id: client, line_items: [line(50)] });
    const booked = await bookNow(api, second.id);
    assert.equal(booked.payment_term_days, 21, 'the account’s payment terms, fixed at booking');
    const newPdf = await pdfText(api, second.id);
    assert.ok(hasImage(await pdfBytes(api, second.id)), 'the logo is printed');
    // Removing the logo later does not take it off the invoice booked with it.
    assert.equal((await api.request('DELETE', '/account/profile/logo')).status, 204);
    await ctx.db
      .updateTable('outgoing_invoices')
      .set({ pdf_file_id: null })
      .where('id', '=', second.id)
      .execute();
    assert.ok(
      hasImage(await pdfBytes(api, second.id)),
      'rendered again from the frozen document: still there',
    );
    assert.match(newPdf, /Renamed Studio GmbH/);
    assert.match(newPdf, /Neue Allee 99/);
    assert.match(newPdf, /Thank you for working with us\./);
    assert.match(newPdf, /Best regards from the new studio/);
    assert.match(newPdf, /Kindly transfer the amount by .+ \(21 days\)\./);
    assert.match(newPdf, /DE89 3704 0044 0532 0130 00/);
    const ubl = (await api.get(`/outgoing-invoices/${second.id}/xml`)).text;
    assert.match(ubl, /Renamed Studio GmbH/);
    assert.equal(
      (await api.get(`/outgoing-invoices/${second.id}`)).body.data.seller.name,
      'Renamed Studio GmbH',
    );
    assert.match(ubl, /DE89370400440532013000/);
    assert.doesNotMatch(ublBefore, /Renamed Studio GmbH/);
  });
});
