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
  makeSupplier,
  mt940,
  OWN_BIC,
  SUPPLIER_BIC,
  SUPPLIER_IBAN,
} from './bank.fixtures.js';
import { type Api, countRows, describeEachDb, expectProblem, multipart } from './helpers.js';
import { bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

const CREDITOR_ID = 'DE98ZZZ09999999999';

/** The numbers of one tag, in file order. */
const all = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((m) => m[1]!);
const cents = (s: string) => Math.round(Number(s) * 100);

describeEachDb('SEPA payment files and mandates', (ctx) => {
  let api: Api;
  let reader: Api;
  let foreign: Api;
  let accountId: number;
  let foreignAccountId: number;
  let supplierId: number;
  let noIbanSupplierId: number;
  let seq = 0;

  const SCOPES = [...BANKING_SCOPES, 'incoming-invoice:read', 'incoming-invoice:write'];

  before(async () => {
    api = await ctx.as(SCOPES);
    reader = await ctx.as('banking:read');
    foreign = await ctx.as(SCOPES, { userId: ctx.other.users.admin });
    accountId = await makePaymentAccount(api, { bic: OWN_BIC });
    foreignAccountId = await makePaymentAccount(foreign, { name: 'Theirs', iban: 'DE12500105170648489890' });
    const profile = await api.patch('/account/profile', { name: 'Müller & Söhne GmbH' });
    assert.equal(profile.status, 200, profile.text);
    supplierId = await makeSupplier(api, {
      name: 'Büro-Bedarf Größe AG',
      iban: SUPPLIER_IBAN,
      bic: SUPPLIER_BIC,
    });
    noIbanSupplierId = await makeSupplier(api, { name: 'No Bank Ltd' });
  });

  const incoming = async (gross: number, extra: Record<string, unknown> = {}, as = api) => {
    const res = await as.post('/incoming-invoices', {
      gross_total: gross,
      supplier_id: as === api ? supplierId : undefined,
      invoice_number: `IN-${++seq}`,
      ...extra,
    });
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as number;
  };
  const readIncoming = async (id: number) => (await api.get(`/incoming-invoices/${id}`)).body.data;
  const transfer = (invoices: { id: number; amount?: number }[], extra: Record<string, unknown> = {}) =>
    api.post('/sepa/credit-transfers', {
      payment_account_id: accountId,
      execution_date: daysFromNow(1),
      invoices: invoices.map(({ id, ...rest }) => ({ incoming_invoice_id: id, ...rest })),
      ...extra,
    });
  const importStatement = async (entries: GenEntry[]) => {
    const text = camt('053', {
      iban: IBAN,
      opening: 1_000_000,
      from: entries[0]!.booking,
      to: entries.at(-1)!.booking,
      id: `SEPA-${++seq}`,
      entries,
    });
    const { body, headers } = await multipart({ name: 's.xml', type: 'application/xml', data: text });
    const res = await api.request('POST', '/bank-statements', body, headers);
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };

  it('a credit transfer: pain.001.001.09 with exact sums, the same bytes on every download, invoices in transit', async () => {
    const a = await incoming(119);
    const b = await incoming(1000.5);
    const res = await transfer([{ id: a }, { id: b, amount: 400.25 }]);
    assert.equal(res.status, 201, res.text);
    const run = res.body.data;
    assert.equal(res.headers.location, `/api/v1/sepa/credit-transfers/${run.id}`);
    assert.equal(run.kind, 'credit_transfer');
    assert.equal(run.version, 'pain.001.001.09');
    assert.equal(run.number_of_transactions, 2);
    assert.equal(run.control_sum, 519.25);
    assert.deepEqual(
      run.items.map((i: any) => [i.invoice_id, i.amount, i.iban, i.bic, i.status]),
      [
        [a, 119, SUPPLIER_IBAN, 'COBADEFFXXX', 'in_transit'],
        [b, 400.25, SUPPLIER_IBAN, 'COBADEFFXXX', 'in_transit'],
      ],
    );
    assert.equal(new Set(run.items.map((i: any) => i.end_to_end_id)).size, 2);

    const file = await reader.get(run.file_url.replace('/api/v1', ''));
    assert.equal(file.status, 200);
    assert.match(String(file.headers['content-type']), /application\/xml/);
    const xml = file.text;
    assert.match(xml, /xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"/);
    assert.deepEqual(all(xml, 'NbOfTxs'), ['2', '2']);
    assert.deepEqual(all(xml, 'CtrlSum'), ['519.25', '519.25']);
    assert.deepEqual(
      all(xml, 'EndToEndId'),
      run.items.map((i: any) => i.end_to_end_id),
    );
    // SEPA characters: umlauts transliterated, & as +.
    assert.match(xml, /<Nm>Mueller \+ Soehne GmbH<\/Nm>/);
    assert.match(xml, /<Nm>Buero-Bedarf Groesse AG<\/Nm>/);
    assert.equal((await reader.get(`/sepa/credit-transfers/${run.id}/file`)).text, xml);
    assert.deepEqual((await reader.get(`/sepa/credit-transfers/${run.id}`)).body.data, run);

    assert.equal((await readIncoming(a)).payment_in_transit, run.id);
    assert.equal((await readIncoming(b)).payment_in_transit, run.id);
  });

  it('pain.001.001.03 on request', async () => {
    const a = await incoming(10);
    const res = await transfer([{ id: a }], { version: 'pain.001.001.03' });
    assert.equal(res.status, 201, res.text);
    const xml = (await reader.get(`/sepa/credit-transfers/${res.body.data.id}/file`)).text;
    assert.match(xml, /pain\.001\.001\.03/);
    assert.match(xml, /<BIC>COBADEFFXXX<\/BIC>/);
    assert.match(xml, /<ReqdExctnDt>\d{4}-\d\d-\d\d<\/ReqdExctnDt>/);
  });

  it('refuses invoices paid, in transit, without supplier IBAN, not in EUR, credits, and other tenants’ ids; nothing stored', async () => {
    const paid = await incoming(50);
    const pay = await api.post('/payments/incoming-invoice', {
      amount: 50,
      date: daysFromNow(0),
      incoming_invoice_id: paid,
    });
    assert.equal(pay.status, 201, pay.text);
    const inTransit = await incoming(20);
    assert.equal((await transfer([{ id: inTransit }])).status, 201);
    const noIban = await incoming(30, { supplier_id: noIbanSupplierId });
    const noSupplier = await incoming(30, { supplier_id: null });
    const usd = await incoming(30, { currency: 'USD' });
    const credit = await incoming(30, { document_type: 'Credit' });
    const fine = await incoming(30);
    const theirs = (await foreign.post('/incoming-invoices', { gross_total: 5 })).body.data.id;
    const before = await countRows(ctx.db, 'sepa_runs');

    const bad = expectProblem(
      await transfer([
        { id: paid },
        { id: inTransit },
        { id: noIban },
        { id: noSupplier },
        { id: usd },
        { id: credit },
        { id: fine, amount: 30.01 },
        { id: fine },
      ]),
      422,
      'validation_failed',
    );
    assert.deepEqual(
      bad.errors!.map((e) => e.field),
      [
        'invoices.0.incoming_invoice_id',
        'invoices.1.incoming_invoice_id',
        'invoices.2.incoming_invoice_id',
        'invoices.3.incoming_invoice_id',
        'invoices.4.incoming_invoice_id',
        'invoices.5.incoming_invoice_id',
        'invoices.6.amount',
        'invoices.7.incoming_invoice_id',
      ],
    );
    assert.match(bad.errors![0]!.message, /paid already/);
    assert.match(bad.errors![1]!.message, /in transit/);
    assert.match(bad.errors![2]!.message, /no valid IBAN/);
    assert.match(bad.errors![4]!.message, /EUR/);

    const missing = expectProblem(await transfer([{ id: fine }, { id: theirs }]), 422, 'invalid_reference');
    assert.deepEqual(missing.errors, [
      { field: 'invoices.1.incoming_invoice_id', message: 'no such incoming invoice' },
    ]);
    expectProblem(
      await transfer([{ id: fine }], { payment_account_id: foreignAccountId }),
      422,
      'invalid_reference',
    );
    expectProblem(await transfer([{ id: fine }], { execution_date: '2020-01-01' }), 422, 'validation_failed');
    expectProblem(await transfer([{ id: fine, amount: 1.234 }]), 422, 'validation_failed');
    expectProblem(await transfer([]), 422);
    expectProblem(await transfer([{ id: fine }], { version: 'pain.001.001.02' }), 422);
    expectProblem(await transfer([{ id: fine }], { color: 'red' }), 422);
    const cash = (await api.post('/payment-accounts', { name: 'Cash', type: 'cash' })).body.data.id;
    expectProblem(await transfer([{ id: fine }], { payment_account_id: cash }), 422, 'validation_failed');
    assert.equal(await countRows(ctx.db, 'sepa_runs'), before);
    assert.equal((await readIncoming(fine)).payment_in_transit, null);
  });

  it('401 without a token, 403 without the scopes, 404 for another tenant’s run', async () => {
    const a = await incoming(12);
    const run = (await transfer([{ id: a }])).body.data;
    expectProblem(await ctx.anon.post('/sepa/credit-transfers', {}), 401);
    expectProblem(await ctx.anon.get(`/sepa/credit-transfers/${run.id}`), 401);
    expectProblem(await reader.post('/sepa/credit-transfers', {}), 403, 'insufficient_scope');
    expectProblem(await reader.post('/sepa/direct-debits', {}), 403, 'insufficient_scope');
    const noRead = await ctx.as('banking:write');
    expectProblem(await noRead.get(`/sepa/credit-transfers/${run.id}`), 403, 'insufficient_scope');
    expectProblem(await noRead.get(`/sepa/credit-transfers/${run.id}/file`), 403, 'insufficient_scope');
    expectProblem(await foreign.get(`/sepa/credit-transfers/${run.id}`), 404);
    expectProblem(await foreign.get(`/sepa/credit-transfers/${run.id}/file`), 404);
    // A credit transfer is not a direct debit.
    expectProblem(await reader.get(`/sepa/direct-debits/${run.id}`), 404);
    // Lists: the account's own runs of the kind, with their items.
    const listed = await reader.get('/sepa/credit-transfers?per_page=100');
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.body.data.find((r: any) => r.id === run.id),
      run,
    );
    assert.ok(
      !(await foreign.get('/sepa/credit-transfers?per_page=100')).body.data.some((r: any) => r.id === run.id),
    );
    assert.ok(
      !(await reader.get('/sepa/direct-debits?per_page=100')).body.data.some((r: any) => r.id === run.id),
    );
    expectProblem(await ctx.anon.get('/sepa/credit-transfers'), 401);
    expectProblem(await noRead.get('/sepa/direct-debits'), 403, 'insufficient_scope');
    expectProblem(await reader.get('/sepa/credit-transfers?kind=x'), 422);
  });

  it('round trip: the CAMT.053 with the end-to-end ids pays the invoices and clears transit; unmatch restores it', async () => {
    const a = await incoming(119);
    const b = await incoming(250);
    const c = await incoming(80);
    const run = (await transfer([{ id: a }, { id: b }, { id: c }])).body.data;
    const [ea, eb, ec] = run.items.map((i: any) => i.end_to_end_id);
    const day = daysFromNow(1);
    const statement = await importStatement([
      // One batch booking of two transfers, as banks book a file with BtchBookg true.
      {
        booking: day,
        amount: -36900,
        ref: `B-${seq}`,
        batch: [
          { amount: -11900, e2e: ea, name: 'Buero-Bedarf', iban: SUPPLIER_IBAN, ref: `B1-${seq}` },
          { amount: -25000, e2e: eb, name: 'Buero-Bedarf', iban: SUPPLIER_IBAN, ref: `B2-${seq}` },
        ],
      },
      // The right id with another amount confirms nothing.
      { booking: day, amount: -7999, e2e: ec, name: 'Buero-Bedarf', ref: `C-${seq}` },
    ]);
    assert.equal(statement.matched, 2);
    for (const id of [a, b]) {
      const inv = await readIncoming(id);
      assert.deepEqual([inv.payment_status, inv.status, inv.payment_in_transit], ['paid', 'paid', null]);
    }
    assert.equal((await readIncoming(c)).payment_in_transit, run.id);

    const lines = (await reader.get(`/bank-transactions?statement_id=${statement.id}`)).body.data;
    const lineA = lines.find((t: any) => t.end_to_end_id === ea);
    assert.equal(lineA.status, 'matched');
    assert.equal(lineA.matches[0].invoice_kind, 'incoming');
    assert.equal(lines.find((t: any) => t.end_to_end_id === ec).status, 'unmatched');

    const ledger = (await api.get(`/payments?incoming_invoice_id=${a}`)).body.data;
    assert.equal(ledger.length, 1);
    assert.equal(ledger[0].bank_transaction_id, lineA.id);
    assert.equal(ledger[0].amount, 119);
    const again = (await reader.get(`/sepa/credit-transfers/${run.id}`)).body.data;
    assert.deepEqual(
      again.items.map((i: any) => [i.status, i.bank_transaction_id !== null]),
      [
        ['confirmed', true],
        ['confirmed', true],
        ['in_transit', false],
      ],
    );
    // GET /payments/{id} shows the link too.
    assert.equal((await api.get(`/payments/${ledger[0].id}`)).body.data.bank_transaction_id, lineA.id);

    const undone = await api.post(`/bank-transactions/${lineA.id}/unmatch`, {});
    assert.equal(undone.status, 200, undone.text);
    const open = await readIncoming(a);
    assert.deepEqual([open.payment_status, open.paid_total, open.payment_in_transit], ['unpaid', 0, run.id]);
    assert.equal((await api.get(`/payments?incoming_invoice_id=${a}`)).body.data.length, 0);
    assert.equal(
      (await reader.get(`/sepa/credit-transfers/${run.id}`)).body.data.items[0].status,
      'in_transit',
    );
  });

  it('an MT940 statement confirms a transfer by its EREF+ end-to-end id', async () => {
    const a = await incoming(42.5);
    const run = (await transfer([{ id: a }])).body.data;
    const day = daysFromNow(2);
    const text = mt940([
      {
        iban: IBAN,
        opening: 1_000_000,
        from: day,
        to: day,
        id: `MT-${++seq}`,
        entries: [
          {
            booking: day,
            amount: -4250,
            e2e: run.items[0].end_to_end_id,
            name: 'Buero-Bedarf',
            ref: `M-${seq}`,
          },
        ],
      },
    ]);
    const { body, headers } = await multipart({ name: 's.sta', type: 'text/plain', data: text });
    const res = await api.request('POST', '/bank-statements', body, headers);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.matched, 1);
    const inv = await readIncoming(a);
    assert.deepEqual([inv.payment_status, inv.payment_in_transit], ['paid', null]);
  });

  it('payments recorded by hand show bank_transaction_id null', async () => {
    const id = await incoming(7);
    const pay = await api.post('/payments/incoming-invoice', {
      amount: 7,
      date: daysFromNow(0),
      incoming_invoice_id: id,
    });
    assert.equal(pay.status, 201, pay.text);
    const listed = (await api.get(`/payments?incoming_invoice_id=${id}`)).body.data;
    assert.equal(listed[0].bank_transaction_id, null);
  });

  it('the creditor identifier on the company profile is checked (ISO 7064 mod 97-10)', async () => {
    const bad = expectProblem(
      await api.patch('/account/profile', { sepa_creditor_identifier: 'DE97ZZZ09999999999' }),
      422,
    );
    assert.equal(bad.errors![0]!.field, 'sepa_creditor_identifier');
    const ok = await api.patch('/account/profile', { sepa_creditor_identifier: 'de98 zzz0 9999 9999 99' });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.data.sepa_creditor_identifier, CREDITOR_ID);
  });

  it('mandates: created, listed, read, revoked; references unique and checked; other tenants’ clients 404', async () => {
    const client = await makeClient(api, { name: 'Mandate Client' });
    const body = { reference: `M-${++seq}`, signed_on: '2026-01-15', iban: 'DE75 5121 0800 1245 1261 99' };
    const res = await api.post(`/clients/${client}/sepa-mandates`, body);
    assert.equal(res.status, 201, res.text);
    const m = res.body.data;
    assert.equal(res.headers.location, `/api/v1/sepa-mandates/${m.id}`);
    assert.deepEqual(
      [m.client_id, m.reference, m.iban, m.bic, m.scheme, m.sequence, m.status],
      [client, body.reference, DEBTOR_IBAN, null, 'CORE', 'first', 'active'],
    );
    expectProblem(await api.post(`/clients/${client}/sepa-mandates`, body), 409, 'already_exists');
    const list = await reader.get(`/clients/${client}/sepa-mandates`);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((x: any) => x.id),
      [m.id],
    );
    assert.deepEqual((await reader.get(`/sepa-mandates/${m.id}`)).body.data, m);

    for (const [field, value] of [
      ['reference', 'WITH BLANK'],
      ['reference', '/LEADING'],
      ['reference', 'A//B'],
      ['reference', 'Ümlaut'],
      ['iban', 'DE00512108001245126199'],
      ['bic', 'NOPE1'],
      ['signed_on', daysFromNow(3)],
    ] as const) {
      const bad = expectProblem(
        await api.post(`/clients/${client}/sepa-mandates`, {
          ...body,
          reference: `X-${++seq}`,
          [field]: value,
        }),
        422,
      );
      assert.equal(bad.errors![0]!.field, field, `${field}=${value}`);
    }
    expectProblem(await api.post(`/clients/${client}/sepa-mandates`, { ...body, scheme: 'COR1' }), 422);
    expectProblem(await api.post(`/clients/${client}/sepa-mandates`, { ...body, extra: 1 }), 422);

    const theirClient = await makeClient(foreign);
    expectProblem(
      await api.post(`/clients/${theirClient}/sepa-mandates`, { ...body, reference: 'OTHER-1' }),
      404,
    );
    expectProblem(await reader.get(`/clients/${theirClient}/sepa-mandates`), 404);
    expectProblem(await foreign.get(`/sepa-mandates/${m.id}`), 404);
    expectProblem(await foreign.post(`/sepa-mandates/${m.id}/revoke`, {}), 404);
    expectProblem(await ctx.anon.get(`/clients/${client}/sepa-mandates`), 401);
    expectProblem(await reader.post(`/clients/${client}/sepa-mandates`, body), 403, 'insufficient_scope');
    expectProblem(await reader.post(`/sepa-mandates/${m.id}/revoke`, {}), 403, 'insufficient_scope');
    expectProblem(await (await ctx.as('banking:write')).get(`/sepa-mandates/${m.id}`), 403);

    const revoked = await api.post(`/sepa-mandates/${m.id}/revoke`, {});
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal(revoked.body.data.status, 'revoked');
    assert.ok(revoked.body.data.revoked_at);
    expectProblem(await api.post(`/sepa-mandates/${m.id}/revoke`, {}), 409, 'conflict');
  });

  it('direct debits: pain.008.001.08 for due invoices of clients with a mandate; FRST then RCUR; sums per block', async () => {
    const core = await makeClient(api, { name: 'Kunde Äpfel & Co' });
    const b2b = await makeClient(api, { name: 'B2B Kunde' });
    const none = await makeClient(api, { name: 'No Mandate' });
    const mCore = (
      await api.post(`/clients/${core}/sepa-mandates`, {
        reference: `CORE-${++seq}`,
        signed_on: '2026-01-02',
        iban: DEBTOR_IBAN,
        bic: 'GENODEF1S04',
      })
    ).body.data;
    const mB2b = (
      await api.post(`/clients/${b2b}/sepa-mandates`, {
        reference: `B2B-${++seq}`,
        signed_on: '2026-01-03',
        iban: SUPPLIER_IBAN,
        scheme: 'B2B',
        sequence: 'recurring',
      })
    ).body.data;
    const booked = async (client: number, net: number) =>
      (await bookNow(api, (await makeInvoice(api, { client_id: client, line_items: [line(net)] })).id))
        .id as number;
    const c1 = await booked(core, 100);
    const c2 = await booked(core, 50.5);
    const b1 = await booked(b2b, 1000);
    const n1 = await booked(none, 10);
    const date = daysFromNow(60);
    const debit = (extra: Record<string, unknown> = {}) =>
      api.post('/sepa/direct-debits', { payment_account_id: accountId, collection_date: date, ...extra });

    expectProblem(await debit({ invoices: [{ invoice_id: n1 }] }), 422, 'validation_failed');
    const theirInvoice = (
      await makeInvoice(foreign, { client_id: await makeClient(foreign), line_items: [line(1)] })
    ).id;
    expectProblem(await debit({ invoices: [{ invoice_id: theirInvoice }] }), 422, 'invalid_reference');

    const res = await debit();
    assert.equal(res.status, 201, res.text);
    const run = res.body.data;
    assert.equal(run.version, 'pain.008.001.08');
    const mine = run.items.filter((i: any) => [c1, c2, b1].includes(i.invoice_id));
    assert.deepEqual(
      mine.map((i: any) => [i.invoice_id, i.mandate_id, i.sequence_type]),
      [
        [c1, mCore.id, 'FRST'],
        [c2, mCore.id, 'FRST'],
        [b1, mB2b.id, 'RCUR'],
      ],
    );
    assert.ok(!run.items.some((i: any) => i.invoice_id === n1));
    assert.deepEqual(
      mine.map((i: any) => i.amount),
      [119, 60.1, 1190],
    );
    const xml = (await reader.get(`/sepa/direct-debits/${run.id}/file`)).text;
    assert.match(xml, /pain\.008\.001\.08/);
    assert.match(xml, new RegExp(`<Id>${CREDITOR_ID}</Id>`));
    assert.match(xml, /<Nm>Kunde Aepfel \+ Co<\/Nm>/);
    // Group header, then one block per scheme and sequence type, each with its own sums.
    const counts = all(xml, 'NbOfTxs').map(Number);
    const sums = all(xml, 'CtrlSum').map(cents);
    const instd = [...xml.matchAll(/<InstdAmt Ccy="EUR">([^<]*)<\/InstdAmt>/g)].map((m) => cents(m[1]!));
    assert.equal(counts[0], run.items.length);
    assert.equal(
      sums[0],
      instd.reduce((s, x) => s + x, 0),
    );
    assert.equal(sums[0], cents(String(run.control_sum)));
    assert.equal(
      counts.slice(1).reduce((s, x) => s + x, 0),
      counts[0],
    );
    assert.equal(
      sums.slice(1).reduce((s, x) => s + x, 0),
      sums[0],
    );
    assert.deepEqual(all(xml, 'SeqTp'), ['FRST', 'RCUR']);
    assert.deepEqual(
      all(xml, 'Cd').filter((c) => c === 'CORE' || c === 'B2B'),
      ['CORE', 'B2B'],
    );

    // Collected: the mandate is recurring now; the invoices are not collected twice.
    assert.equal((await reader.get(`/sepa-mandates/${mCore.id}`)).body.data.sequence, 'recurring');
    const twice = expectProblem(await debit({ invoices: [{ invoice_id: c1 }] }), 422, 'validation_failed');
    assert.match(twice.errors![0]!.message, /being collected/);
    const c3 = await booked(core, 10);
    const next = await debit({ invoices: [{ invoice_id: c3 }] });
    assert.equal(next.status, 201, next.text);
    assert.equal(next.body.data.items[0].sequence_type, 'RCUR');

    // The bank statement with the collection's end-to-end id pays the outgoing invoice.
    const item = mine[0];
    const statement = await importStatement([
      {
        booking: date,
        amount: 11900,
        e2e: item.end_to_end_id,
        name: 'Kunde Aepfel',
        iban: DEBTOR_IBAN,
        ref: `DD-${seq}`,
      },
    ]);
    assert.equal(statement.matched, 1);
    const inv = (await api.get(`/outgoing-invoices/${c1}`)).body.data;
    assert.equal(inv.payment_status, 'paid');
    const pays = (await api.get(`/payments?invoice_id=${c1}`)).body.data;
    assert.equal(pays.length, 1);
    assert.notEqual(pays[0].bank_transaction_id, null);
    assert.equal((await reader.get(`/sepa/direct-debits/${run.id}`)).body.data.items[0].status, 'confirmed');

    // A revoked mandate collects nothing.
    await api.post(`/sepa-mandates/${mB2b.id}/revoke`, {});
    const b2 = await booked(b2b, 5);
    expectProblem(await debit({ invoices: [{ invoice_id: b2 }] }), 422, 'validation_failed');
  });

  it('direct debits need the creditor identifier and a payment account with an IBAN', async () => {
    const fresh = await ctx.as(SCOPES, { userId: ctx.other.users.admin });
    const client = await makeClient(fresh);
    await fresh.post(`/clients/${client}/sepa-mandates`, {
      reference: `F-${++seq}`,
      signed_on: '2026-01-02',
      iban: DEBTOR_IBAN,
    });
    const inv = (
      await bookNow(fresh, (await makeInvoice(fresh, { client_id: client, line_items: [line(10)] })).id)
    ).id;
    const body = {
      payment_account_id: foreignAccountId,
      collection_date: daysFromNow(60),
      invoices: [{ invoice_id: inv }],
    };
    const before = await countRows(ctx.db, 'sepa_runs');
    expectProblem(await fresh.post('/sepa/direct-debits', body), 422, 'unprocessable');
    expectProblem(
      await fresh.post('/sepa/direct-debits', { ...body, payment_account_id: accountId }),
      422,
      'invalid_reference',
    );
    expectProblem(await fresh.post('/sepa/direct-debits', { ...body, collection_date: '2020-01-01' }), 422);
    assert.equal(await countRows(ctx.db, 'sepa_runs'), before);
  });
});
