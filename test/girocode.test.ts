import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { creditorReference } from '../src/shared/creditor-reference.js';
import { camt } from './bank.fixtures.js';
import { type Api, describeEachDb, multipart } from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';
import { epcFields, qrCodesOfPdf } from './qr.js';

const IBAN = 'DE02120300000000202051';

describeEachDb('GiroCode on invoice PDFs', (ctx) => {
  let api: Api;
  let clientId: number;

  before(async () => {
    api = await ctx.as([...ALL_INVOICE_SCOPES, 'banking:read', 'banking:write']);
    clientId = await makeClient(api);
  });

  const pdfOf = async (id: number) => {
    const res = await ctx.app.inject({
      url: `/api/v1/outgoing-invoices/${id}/pdf`,
      headers: { authorization: `Bearer ${api.token}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.rawPayload;
  };

  it('a booked invoice: the code gives the profile IBAN, the gross amount and the RF reference of its number; a statement line with that reference is matched', async () => {
    const inv = await makeInvoice(api, { client_id: clientId, line_items: [line(1000), line(0.5)] });
    const booked = await bookNow(api, inv.id);
    const [payload, ...more] = await qrCodesOfPdf(await pdfOf(inv.id));
    assert.equal(more.length, 0);
    const f = epcFields(payload!);
    const reference = creditorReference(booked.invoice_number)!;
    assert.deepEqual(
      [f.service, f.version, f.charset, f.identification, f.iban, f.amount, f.reference, f.text],
      ['BCD', '002', '1', 'SCT', IBAN, 'EUR1190.60', reference, ''],
    );
    assert.match(f.name, /^Test account/);

    // The client pays with the code: its bank sends the reference back, and it alone decides.
    const account = await api.post('/payment-accounts', { name: 'Giro', iban: IBAN });
    assert.equal(account.status, 201, account.text);
    const file = camt('053', {
      iban: IBAN,
      opening: 0,
      from: '2026-05-04',
      to: '2026-05-04',
      entries: [
        {
          booking: '2026-05-04',
          amount: 119060,
          name: 'Someone else',
          creditorRef: reference,
          text: 'thanks',
        },
      ],
    });
    const { body, headers } = await multipart({ name: 'a.xml', type: 'application/xml', data: file });
    const imported = await api.request('POST', '/bank-statements', body, headers);
    assert.equal(imported.status, 201, imported.text);
    const tx = (await api.get(`/bank-transactions?statement_id=${imported.body.data.id}`)).body.data[0];
    assert.equal(tx.status, 'matched');
    assert.deepEqual(
      tx.matches.map((m: { invoice_id: number }) => m.invoice_id),
      [inv.id],
    );
  });

  it('a draft carries a code without reference that names it a draft; a credit note and a USD invoice carry none', async () => {
    const draft = await makeInvoice(api, { client_id: clientId, line_items: [line(100)] });
    const f = epcFields((await qrCodesOfPdf(await pdfOf(draft.id)))[0]!);
    assert.deepEqual([f.iban, f.amount, f.reference], [IBAN, 'EUR119.00', '']);
    assert.match(f.text, /draft|Entwurf/i);

    const credit = await makeInvoice(api, { type: 'credit', client_id: clientId, line_items: [line(-50)] });
    await bookNow(api, credit.id);
    assert.deepEqual(await qrCodesOfPdf(await pdfOf(credit.id)), []);
    const usd = await makeInvoice(api, { client_id: clientId, currency: 'USD', line_items: [line(100)] });
    assert.deepEqual(await qrCodesOfPdf(await pdfOf(usd.id)), []);
  });
});
