import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import {
  BANKING_SCOPES,
  camt,
  OTHER_IBAN as DEBTOR_IBAN,
  daysFromNow,
  type GenEntry,
  OWN_IBAN as IBAN,
  makePaymentAccount,
  mt940,
  OWN_BIC,
} from './bank.fixtures.js';
import { type Api, describeEachDb, multipart } from './helpers.js';
import { bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

/** R-transactions: a collected direct debit taken back by the debtor's bank undoes its payment. */
describeEachDb('bank lines returning our direct debits', (ctx) => {
  let api: Api;
  let accountId: number;
  let seq = 0;

  before(async () => {
    api = await ctx.as(BANKING_SCOPES);
    accountId = await makePaymentAccount(api, { bic: OWN_BIC });
    const profile = await api.patch('/account/profile', {
      name: 'Müller & Söhne GmbH',
      sepa_creditor_identifier: 'DE98ZZZ09999999999',
    });
    assert.equal(profile.status, 200, profile.text);
  });

  /** A client with a first-time mandate, one booked invoice, collected by a pain.008 run. */
  const collected = async (net: number) => {
    const client = await makeClient(api, { name: `Kunde ${++seq}` });
    const mandate = (
      await api.post(`/clients/${client}/sepa-mandates`, {
        reference: `RT-${seq}`,
        signed_on: '2026-01-02',
        iban: DEBTOR_IBAN,
      })
    ).body.data;
    const invoice = (
      await bookNow(api, (await makeInvoice(api, { client_id: client, line_items: [line(net)] })).id)
    ).id as number;
    const run = await api.post('/sepa/direct-debits', {
      payment_account_id: accountId,
      collection_date: daysFromNow(30),
      invoices: [{ invoice_id: invoice }],
    });
    assert.equal(run.status, 201, run.text);
    const item = run.body.data.items[0];
    return { client, mandate, invoice, run: run.body.data, e2e: item.end_to_end_id as string, item };
  };
  /** A CAMT.053 of these entries; `edit` rewrites the XML (return details the generator lacks). */
  const upload = async (entries: GenEntry[], edit: (xml: string) => string = (x) => x) => {
    const xml = camt('053', {
      iban: IBAN,
      opening: 1_000_000,
      from: entries[0]!.booking,
      to: entries.at(-1)!.booking,
      id: `RT-${++seq}`,
      entries,
    });
    const { body, headers } = await multipart({ name: 's.xml', type: 'application/xml', data: edit(xml) });
    const res = await api.request('POST', '/bank-statements', body, headers);
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };
  const lineOf = async (e2e: string, sign: 1 | -1) =>
    ((await api.get(`/bank-transactions?q=${e2e}`)).body.data as any[]).find(
      (t) => Math.sign(t.amount) === sign,
    );
  const invoiceOf = async (id: number) => (await api.get(`/outgoing-invoices/${id}`)).body.data;
  const mandateOf = async (id: number) => (await api.get(`/sepa-mandates/${id}`)).body.data;

  it('a returned first collection (RtrInf MS02): payment undone, invoice open, both lines set aside, mandate FRST again', async () => {
    const c = await collected(100); // 119.00
    assert.equal(c.item.sequence_type, 'FRST');
    assert.equal((await mandateOf(c.mandate.id)).sequence, 'recurring');
    const day = daysFromNow(30);
    const first = await upload([
      { booking: day, amount: 11900, name: 'Kunde', e2e: c.e2e, ref: `IN-${seq}` },
    ]);
    assert.equal(first.matched, 1);
    assert.equal((await invoiceOf(c.invoice)).payment_status, 'paid');

    const back = await upload(
      [
        {
          booking: daysFromNow(32),
          amount: -11900,
          name: 'Kunde',
          e2e: c.e2e,
          ref: `RT-${seq}`,
          text: 'RUECKLASTSCHRIFT',
        },
      ],
      (xml) => xml.replace('</TxDtls>', '<RtrInf><Rsn><Cd>MS02</Cd></Rsn></RtrInf></TxDtls>'),
    );
    assert.equal(back.matched, 0);
    const inv = await invoiceOf(c.invoice);
    assert.deepEqual([inv.payment_status, inv.open_total], ['unpaid', 119]);
    assert.equal((await api.get(`/payments?invoice_id=${c.invoice}`)).body.data.length, 0);
    const credit = await lineOf(c.e2e, 1);
    const debit = await lineOf(c.e2e, -1);
    assert.deepEqual([credit.status, credit.matches, credit.return_reason], ['ignored', [], null]);
    assert.deepEqual([debit.status, debit.return_reason, debit.suggestions], ['ignored', 'MS02', []]);
    const run = (await api.get(`/sepa/direct-debits/${c.run.id}`)).body.data;
    assert.deepEqual([run.items[0].status, run.items[0].bank_transaction_id], ['returned', debit.id]);
    // The mandate was never collected: its next collection is a first one again.
    assert.equal((await mandateOf(c.mandate.id)).sequence, 'first');
  });

  it('a reversal (RvslInd) of a recurring collection undoes its payment; the mandate stays recurring; other lines untouched', async () => {
    const c = await collected(50); // 59.50
    const day = daysFromNow(30);
    await upload([{ booking: day, amount: 5950, name: 'Kunde', e2e: c.e2e, ref: `IN-${seq}` }]);
    // A later collection on the same mandate was collected: the mandate has been used.
    const inv2 = (
      await bookNow(api, (await makeInvoice(api, { client_id: c.client, line_items: [line(10)] })).id)
    ).id as number;
    const run2 = await api.post('/sepa/direct-debits', {
      payment_account_id: accountId,
      collection_date: daysFromNow(31),
      invoices: [{ invoice_id: inv2 }],
    });
    assert.equal(run2.body.data.items[0].sequence_type, 'RCUR');
    await upload([
      {
        booking: daysFromNow(31),
        amount: 1190,
        name: 'Kunde',
        e2e: run2.body.data.items[0].end_to_end_id,
        ref: `IN2-${seq}`,
      },
    ]);
    // Booked as the reversal of a credit: CRDT with RvslInd, read as money out; no reason code.
    const back = await upload(
      [
        { booking: daysFromNow(33), amount: 5950, name: 'Kunde', e2e: c.e2e, ref: `RV-${seq}` },
        // Not one of ours: stays a line to decide.
        { booking: daysFromNow(33), amount: -5950, name: 'Kunde', e2e: 'SOMEONE-ELSE', ref: `X-${seq}` },
      ],
      (xml) =>
        xml.replace(
          '<CdtDbtInd>CRDT</CdtDbtInd><Sts>',
          '<CdtDbtInd>CRDT</CdtDbtInd><RvslInd>true</RvslInd><Sts>',
        ),
    );
    assert.equal(back.entries_new, 2);
    const debit = await lineOf(c.e2e, -1);
    assert.deepEqual([debit.amount, debit.status, debit.return_reason], [-59.5, 'ignored', 'RVSL']);
    assert.equal((await invoiceOf(c.invoice)).payment_status, 'unpaid');
    assert.equal((await invoiceOf(inv2)).payment_status, 'paid');
    assert.equal((await mandateOf(c.mandate.id)).sequence, 'recurring');
    const other = ((await api.get('/bank-transactions?q=SOMEONE-ELSE')).body.data as any[])[0];
    assert.deepEqual([other.status, other.return_reason], ['unmatched', null]);
    // Returned already: the same return again in another file confirms nothing more.
    assert.equal((await api.get(`/sepa/direct-debits/${c.run.id}`)).body.data.items[0].status, 'returned');
  });

  it('MT940: a German return (GVC 109) with its reason in the purpose undoes the collection', async () => {
    const c = await collected(20); // 23.80
    await upload([{ booking: daysFromNow(30), amount: 2380, name: 'Kunde', e2e: c.e2e, ref: `IN-${seq}` }]);
    assert.equal((await invoiceOf(c.invoice)).payment_status, 'paid');
    const text = mt940(
      [
        {
          iban: IBAN,
          opening: 1_000_000,
          from: daysFromNow(34),
          to: daysFromNow(34),
          id: `MT-${++seq}`,
          entries: [
            {
              booking: daysFromNow(34),
              amount: -2380,
              name: 'Kunde',
              e2e: c.e2e,
              text: 'RUECKLASTSCHRIFT AC04 KONTO ERLOSCHEN',
              ref: `MT-${seq}`,
            },
          ],
        },
      ],
      { dialect: 'german' },
    ).replace('177?00ONLINE-UEBERWEISUNG', '109?00RUECKLASTSCHRIFT');
    const { body, headers } = await multipart({ name: 's.sta', type: 'text/plain', data: text });
    const res = await api.request('POST', '/bank-statements', body, headers);
    assert.equal(res.status, 201, res.text);
    const debit = await lineOf(c.e2e, -1);
    assert.deepEqual([debit.status, debit.return_reason], ['ignored', 'AC04']);
    assert.equal((await invoiceOf(c.invoice)).payment_status, 'unpaid');
    assert.equal((await mandateOf(c.mandate.id)).sequence, 'first');
  });
});
