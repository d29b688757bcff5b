import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { importData } from '../src/import/index.js';
import {
  type Api,
  COMPLETE_SELLER,
  createAccount,
  describeEachDb,
  expectProblem,
  multipart,
} from './helpers.js';
import {
  ALL_INVOICE_SCOPES,
  BUYER_ADDRESS,
  bookNow,
  freshAccount,
  line,
  makeClient,
  makeInvoice,
} from './invoicing.fixtures.js';

/**
 * §14 (4) UStG and EN 16931: an invoice is booked only when it names seller and buyer with
 * their addresses, the seller's VAT id or tax number, the supply date or period and, for 0 %
 * lines, why no VAT is charged. One refusal lists every gap; nothing is written by it.
 */

async function pdfText(api: Api, id: number): Promise<string> {
  const res = await api.app.inject({
    url: `/api/v1/outgoing-invoices/${id}/pdf`,
    headers: { authorization: `Bearer ${api.token}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  const doc = await getDocument({ data: new Uint8Array(res.rawPayload), isEvalSupported: false }).promise;
  let text = '';
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent();
    text += `${content.items.map((it) => ('str' in it ? it.str : '')).join(' ')}\n`;
  }
  await doc.destroy();
  return text.replace(/\s+/g, ' ');
}

const fields = (res: Parameters<typeof expectProblem>[0]) =>
  expectProblem(res, 422, 'validation_failed')
    .errors!.map((e) => e.field)
    .sort();

describeEachDb('legally complete invoices', (ctx) => {
  let api: Api;
  let bare: Api;

  before(async () => {
    ({ api } = await freshAccount(ctx));
    // An account that has told the service nothing about itself (no address, no VAT id,
    // no rule for the supply date).
    const acc = await createAccount(ctx.db, { account: { name: 'Bare GmbH', settings: {} } });
    bare = await ctx.as(ALL_INVOICE_SCOPES, { userId: acc.users.admin });
  });

  it('lists every missing field at once: seller, buyer, supply date, reason for 0 % VAT; nothing is booked', async () => {
    const res = await bare.post('/clients', { name: 'City Only AG', city: 'Köln' });
    const inv = await makeInvoice(bare, {
      client_id: res.body.data.id,
      line_items: [line(100), line(50, { tax_rate: 0 })],
    });
    const refused = await bare.post(`/outgoing-invoices/${inv.id}/book`);
    assert.deepEqual(fields(refused), [
      'account.city',
      'account.country_code',
      'account.street',
      'account.vat_id',
      'account.zip',
      'client.country_code',
      'client.street',
      'client.zip',
      'service_period_start',
      'tax_exemption_category',
    ]);
    const after = (await bare.get(`/outgoing-invoices/${inv.id}`)).body.data;
    assert.equal(after.status, 'open');
    assert.equal(after.invoice_number, null);
    assert.equal(after.seller, null);
  });

  it('a document with no client and no lines is refused with the legal gaps in the same list', async () => {
    const inv = await makeInvoice(bare, {});
    const got = fields(await bare.post(`/outgoing-invoices/${inv.id}/book`));
    assert.ok(
      got.includes('client_id') && got.includes('line_items') && got.includes('account.vat_id'),
      String(got),
    );
  });

  it('a service period (or a single supply date) satisfies the supply date without the account setting', async () => {
    const { api: strict } = await freshAccount(ctx, { service_date_defaults_to_invoice_date: false });
    const client = await makeClient(strict);
    const without = await makeInvoice(strict, { client_id: client, line_items: [line(10)] });
    assert.deepEqual(fields(await strict.post(`/outgoing-invoices/${without.id}/book`)), [
      'service_period_start',
    ]);
    const withPeriod = await makeInvoice(strict, {
      client_id: client,
      service_period_start: '2026-05-01',
      service_period_end: '2026-05-31',
      line_items: [line(10)],
    });
    const booked = await bookNow(strict, withPeriod.id);
    assert.equal(booked.service_date, null);
    const single = await makeInvoice(strict, {
      client_id: client,
      service_period_start: '2026-05-07',
      line_items: [line(10)],
    });
    await bookNow(strict, single.id);
  });

  it('a tax number is enough instead of a VAT id', async () => {
    const { api: small } = await freshAccount(ctx, { vat_id: null });
    const inv = await makeInvoice(small, { client_id: await makeClient(small), line_items: [line(10)] });
    const booked = await bookNow(small, inv.id);
    assert.equal(booked.seller.vat_id, null);
    assert.equal(booked.seller.tax_number, COMPLETE_SELLER.tax_number);
  });

  it('0 % lines: exempt (E) needs its legal basis; reverse charge (AE) needs both VAT ids', async () => {
    const client = await makeClient(api);
    const exempt = await makeInvoice(api, {
      client_id: client,
      tax_exemption_category: 'E',
      line_items: [line(10, { tax_rate: 0 })],
    });
    assert.deepEqual(fields(await api.post(`/outgoing-invoices/${exempt.id}/book`)), [
      'tax_exemption_reason',
    ]);
    const ok = await api.patch(`/outgoing-invoices/${exempt.id}`, {
      tax_exemption_reason: 'Kleinunternehmer gemäß § 19 UStG',
    });
    assert.equal(ok.status, 200);
    const booked = await bookNow(api, exempt.id);
    assert.equal(booked.tax_exemption_category, 'E');

    const reverse = await makeInvoice(api, {
      client_id: client,
      tax_exemption_category: 'AE',
      line_items: [line(10, { tax_rate: 0 })],
    });
    assert.deepEqual(fields(await api.post(`/outgoing-invoices/${reverse.id}/book`)), ['client.vat_id']);
    const euClient = await makeClient(api, { country_code: 'AT', vat_id: 'ATU12345678' });
    await api.patch(`/outgoing-invoices/${reverse.id}`, { client_id: euClient });
    const rc = await bookNow(api, reverse.id);
    assert.equal(rc.gross_total, 10);
    const text = await pdfText(api, rc.id);
    assert.match(text, /Reverse Charge/);
  });

  it('intra-community (K) and export (G) need the seller’s VAT id, K also the buyer’s; a tax number does not do', async () => {
    const { api: small } = await freshAccount(ctx, { vat_id: null });
    const client = await makeClient(small, { country_code: 'FR' });
    for (const [category, expected] of [
      ['K', ['account.vat_id', 'client.vat_id']],
      ['G', ['account.vat_id']],
    ] as const) {
      const inv = await makeInvoice(small, {
        client_id: client,
        tax_exemption_category: category,
        line_items: [line(10, { tax_rate: 0 })],
      });
      assert.deepEqual(fields(await small.post(`/outgoing-invoices/${inv.id}/book`)), expected, category);
    }
  });

  it('an invalid VAT category or VATEX code is refused on input', async () => {
    const client = await makeClient(api);
    expectProblem(
      await api.post('/outgoing-invoices', { client_id: client, tax_exemption_category: 'X' }),
      422,
      'validation_failed',
    );
    expectProblem(
      await api.post('/outgoing-invoices', { client_id: client, tax_exemption_reason_code: 'EU-AE' }),
      422,
      'validation_failed',
    );
  });

  it('with a buyer reference (XRechnung) the seller contact and payment instructions are required', async () => {
    const { api: noContact } = await freshAccount(ctx, { contact_name: null, phone: null, iban: null });
    const client = await makeClient(noContact, { buyer_reference: '991-12345-67' });
    const inv = await makeInvoice(noContact, { client_id: client, line_items: [line(10)] });
    assert.deepEqual(fields(await noContact.post(`/outgoing-invoices/${inv.id}/book`)), [
      'account.contact_name',
      'account.iban',
      'account.phone',
    ]);
    // Without a buyer reference the same invoice is a plain (EN 16931) invoice.
    const plain = await makeInvoice(noContact, {
      client_id: await makeClient(noContact),
      line_items: [line(10)],
    });
    await bookNow(noContact, plain.id);
  });

  it('seller and buyer are frozen at booking and returned on every read; the supply date defaults to the invoice date and is printed', async () => {
    const client = await makeClient(api, {
      name: 'Frozen Kunde GmbH',
      language: 'de',
      vat_id: 'DE811111111',
    });
    const inv = await makeInvoice(api, { client_id: client, date: '2026-12-01', line_items: [line(100)] });
    assert.equal(inv.seller, null);
    assert.equal(inv.buyer, null);
    const booked = await bookNow(api, inv.id);
    assert.equal(booked.service_date, '2026-12-01');
    assert.deepEqual(booked.buyer, {
      name: 'Frozen Kunde GmbH',
      ...BUYER_ADDRESS,
      vat_id: 'DE811111111',
      tax_number: null,
      email: null,
      phone: null,
      contact_name: null,
    });
    assert.equal(booked.seller.street, COMPLETE_SELLER.street);
    assert.equal(booked.seller.contact_name, COMPLETE_SELLER.contact_name);
    assert.equal(
      (await api.patch(`/clients/${client}`, { street: 'Neue Straße 9', name: 'Renamed' })).status,
      200,
    );
    const read = (await api.get(`/outgoing-invoices/${inv.id}`)).body.data;
    assert.deepEqual(read.buyer, booked.buyer);
    const listed = (await api.get(`/outgoing-invoices?invoice_number=${booked.invoice_number}`)).body.data;
    assert.deepEqual(listed[0].buyer, booked.buyer);
    const text = await pdfText(api, inv.id);
    assert.match(text, /Leistungsdatum entspricht Rechnungsdatum/);
    assert.match(text, /Kundenweg 7/, 'prints the address as booked');
    assert.match(text, /01\.12\.2026/);
  });
});

describeEachDb('e-invoice download', (ctx) => {
  let api: Api;
  let clientId: number;
  let accountId: number;

  before(async () => {
    const fresh = await freshAccount(ctx);
    api = fresh.api;
    accountId = fresh.acc.accountId;
    clientId = await makeClient(api, { buyer_reference: '04011000-1234512345-06' });
  });

  it('a draft has no e-invoice (409); a booked one is XRechnung 3.0 in UBL (default) and CII; unknown syntax 422', async () => {
    const inv = await makeInvoice(api, { client_id: clientId, line_items: [line(100, { unit: 'h' })] });
    expectProblem(await api.get(`/outgoing-invoices/${inv.id}/xml`), 409, 'invoice_not_booked');
    const booked = await bookNow(api, inv.id);
    const ubl = await api.get(`/outgoing-invoices/${inv.id}/xml`);
    assert.equal(ubl.status, 200);
    assert.equal(ubl.headers['content-type'], 'application/xml');
    assert.match(ubl.text, /<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/);
    assert.match(
      ubl.text,
      /<cbc:CustomizationID>urn:cen\.eu:en16931:2017#compliant#urn:xeinkauf\.de:kosit:xrechnung_3\.0<\/cbc:CustomizationID>/,
    );
    assert.match(ubl.text, /<cbc:BuyerReference>04011000-1234512345-06<\/cbc:BuyerReference>/);
    assert.match(ubl.text, new RegExp(`<cbc:ID>${booked.invoice_number}</cbc:ID>`));
    assert.match(ubl.text, /unitCode="HUR"/);
    assert.match(ubl.text, /<cbc:Name>Ada Admin<\/cbc:Name>/, 'seller contact (BT-41)');
    const cii = await api.get(`/outgoing-invoices/${inv.id}/xml?syntax=cii`);
    assert.equal(cii.status, 200);
    assert.match(cii.text, /<rsm:CrossIndustryInvoice/);
    assert.match(cii.text, /<ram:BuyerReference>04011000-1234512345-06<\/ram:BuyerReference>/);
    assert.equal((await api.get(`/outgoing-invoices/${inv.id}/xml?syntax=cii`)).text, cii.text, 'stable');
    expectProblem(await api.get(`/outgoing-invoices/${inv.id}/xml?syntax=pdf`), 422);
    expectProblem(await api.get('/outgoing-invoices/999999/xml'), 404);
  });

  it("the invoice's buyer reference overrides the client's; credits are UBL CreditNotes with positive amounts", async () => {
    const inv = await makeInvoice(api, {
      client_id: clientId,
      buyer_reference: 'PO-4711',
      line_items: [line(100)],
    });
    const booked = await bookNow(api, inv.id);
    assert.equal(booked.buyer_reference, 'PO-4711');
    const ubl = (await api.get(`/outgoing-invoices/${inv.id}/xml`)).text;
    assert.match(ubl, /<cbc:BuyerReference>PO-4711<\/cbc:BuyerReference>/);
    const credit = await makeInvoice(api, {
      type: 'credit',
      client_id: clientId,
      credited_invoice_id: inv.id,
      line_items: [line(-10)],
    });
    await bookNow(api, credit.id);
    const note = (await api.get(`/outgoing-invoices/${credit.id}/xml`)).text;
    assert.match(note, /<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/);
    assert.match(note, /<cbc:CreditNoteTypeCode>381<\/cbc:CreditNoteTypeCode>/);
    assert.match(note, /<cbc:PayableAmount currencyID="EUR">11\.90<\/cbc:PayableAmount>/);
  });

  it('an imported booked invoice has an e-invoice too; an uploaded one does not (409)', async () => {
    await importData(
      ctx.db,
      {
        clients: [{ key: 'imp', name: 'Imported Kunde', ...BUYER_ADDRESS }],
        outgoing_invoices: [
          {
            key: 'old',
            type: 'invoice',
            status: 'booked',
            invoice_number: 'ALT-2025-0001',
            client: 'imp',
            date: '2025-12-31',
            service_period_start: '2025-12-01',
            service_period_end: '2025-12-31',
            line_items: [{ title: 'Wartung', quantity: 1, unit: 'month', unit_price: 450, tax_rate: 19 }],
          },
        ],
      },
      { accountId },
    );
    const [old] = (await api.get('/outgoing-invoices?invoice_number=ALT-2025-0001')).body.data;
    const ubl = await api.get(`/outgoing-invoices/${old.id}/xml`);
    assert.equal(ubl.status, 200, ubl.text);
    assert.match(ubl.text, /unitCode="MON"/);
    const form = await multipart(
      { name: 'legacy.pdf', type: 'application/pdf', data: Buffer.from('%PDF-1.4\n%%EOF\n') },
      {
        data: JSON.stringify({
          invoice_number: 'EXT-1',
          client_id: clientId,
          date: '2026-01-05',
          line_items: [line(10)],
        }),
      },
    );
    const ext = await api.request('POST', '/outgoing-invoices/external', form.body, form.headers);
    assert.equal(ext.status, 201, ext.text);
    assert.equal(ext.body.data.buyer.street, BUYER_ADDRESS.street, 'the parties are kept for uploads too');
    expectProblem(await api.get(`/outgoing-invoices/${ext.body.data.id}/xml`), 409, 'invoice_not_booked');
  });

  it('needs the read scope', async () => {
    const inv = await makeInvoice(api, { client_id: clientId, line_items: [line(1)] });
    await bookNow(api, inv.id);
    const noScope = await ctx.as(['client:write']);
    expectProblem(await noScope.get(`/outgoing-invoices/${inv.id}/xml`), 403, 'insufficient_scope');
  });
});
