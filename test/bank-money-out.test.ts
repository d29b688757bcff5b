import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import {
  camt,
  daysFromNow,
  type GenEntry,
  type GenStatement,
  OWN_IBAN as IBAN,
  makePaymentAccount,
  makeSupplier,
  mt940,
  OTHER_IBAN as OTHER_SUPPLIER_IBAN,
  SUPPLIER_IBAN,
} from './bank.fixtures.js';
import { type Api, describeEachDb, expectProblem, multipart } from './helpers.js';
import { ALL_INVOICE_SCOPES } from './invoicing.fixtures.js';

describeEachDb('bank lines paying incoming invoices', (ctx) => {
  let api: Api;
  let reader: Api;
  let foreign: Api;
  let accountId: number;
  let supplier: number;
  let otherSupplier: number;
  let seq = 0;

  const SCOPES = [
    ...ALL_INVOICE_SCOPES,
    'banking:read',
    'banking:write',
    'incoming-invoice:read',
    'incoming-invoice:write',
  ];

  before(async () => {
    api = await ctx.as(SCOPES);
    reader = await ctx.as('banking:read');
    foreign = await ctx.as(SCOPES, { userId: ctx.other.users.admin });
    accountId = await makePaymentAccount(api);
    supplier = await makeSupplier(api, { name: 'Büro-Bedarf AG', iban: SUPPLIER_IBAN });
    otherSupplier = await makeSupplier(api, { name: 'Druckerei Weiß', iban: OTHER_SUPPLIER_IBAN });
  });

  /** An incoming invoice with the supplier's number and gross. */
  const incoming = async (number: string, gross: number, supplierId = supplier, as = api) => {
    const res = await as.post('/incoming-invoices', {
      gross_total: gross,
      invoice_number: number,
      ...(as === api ? { supplier_id: supplierId } : {}),
    });
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as number;
  };
  const readIncoming = async (id: number) => (await api.get(`/incoming-invoices/${id}`)).body.data;
  const statement = (entries: GenEntry[]): GenStatement => ({
    iban: IBAN,
    opening: 5_000_000,
    from: entries[0]!.booking,
    to: entries.at(-1)!.booking,
    id: `OUT-${++seq}`,
    entries,
  });
  const upload = async (data: string, name: string) => {
    const { body, headers } = await multipart({ name, type: 'application/octet-stream', data });
    const res = await api.request('POST', '/bank-statements', body, headers);
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };
  const linesOf = async (statementId: number) =>
    (await reader.get(`/bank-transactions?statement_id=${statementId}`)).body.data as any[];
  const byRef = (lines: any[], ref: string) => lines.find((t) => t.bank_reference === ref);
  const ledgerOf = async (id: number) => (await api.get(`/payments?incoming_invoice_id=${id}`)).body.data;

  it('CAMT: debit lines matched when certain, suggested otherwise; payments carry the line', async () => {
    const single = await incoming('R-2026-00815', 238);
    const first = await incoming('INV/2026/123', 119);
    const second = await incoming('INV/2026/124', 23.8);
    const partial = await incoming('2026-4711', 500);
    const shared = await incoming('9001', 50);
    const sharedOther = await incoming('9001', 50, otherSupplier);
    const day = '2026-05-04';
    const s = await upload(
      camt(
        '053',
        statement([
          // Cut inside the number at 35 characters, as German banks write Ustrd.
          {
            booking: day,
            amount: -23800,
            iban: SUPPLIER_IBAN,
            text: 'Zahlung der Rechnung Nr. R-2026-00815 Kd 4711',
            ref: 'M1',
          },
          { booking: day, amount: -14280, text: 'RE INV/2026/123 + INV/2026/124', ref: 'M2' },
          { booking: day, amount: -20000, text: 'Abschlag Rechnung 2026-4711', ref: 'M3' },
          { booking: day, amount: -5000, text: 'Rechnung 9001', ref: 'M4' },
          { booking: day, amount: -250000, name: 'WEBER, ANNA', text: 'Gehalt 05/2026', ref: 'M5' },
          { booking: day, amount: -1250, text: 'Kontofuehrung', ref: 'M6' },
        ]),
        { version: '02', splitUstrd: true },
      ),
      'out.xml',
    );
    assert.equal(s.matched, 2);
    const lines = await linesOf(s.id);
    const m1 = byRef(lines, 'M1');
    assert.equal(m1.status, 'matched');
    assert.deepEqual(
      m1.matches.map((m: any) => [m.invoice_id, m.amount, m.origin, m.invoice_kind]),
      [[single, 238, 'auto', 'incoming']],
    );
    const m2 = byRef(lines, 'M2');
    assert.deepEqual(
      m2.matches.map((m: any) => [m.invoice_id, m.amount]),
      [
        [first, 119],
        [second, 23.8],
      ],
    );
    for (const id of [single, first, second]) {
      const inv = await readIncoming(id);
      assert.deepEqual([inv.status, inv.payment_status], ['paid', 'paid']);
    }
    const [payment] = await ledgerOf(single);
    assert.deepEqual(
      [payment.amount, payment.bank_transaction_id, payment.type],
      [238, m1.id, 'incoming_invoice'],
    );
    assert.equal((await ledgerOf(second))[0].bank_transaction_id, m2.id);

    // A partial payment by number: a suggestion; the invoice stays open.
    const m3 = byRef(lines, 'M3');
    assert.equal(m3.status, 'unmatched');
    assert.deepEqual(
      [m3.suggestions[0].invoice_id, m3.suggestions[0].invoice_kind, m3.suggestions[0].amount],
      [partial, 'incoming', 200],
    );
    assert.deepEqual(m3.suggestions[0].reasons, ['number_in_text']);
    assert.equal((await readIncoming(partial)).paid_total, 0);
    // Two suppliers numbered an invoice 9001: both suggested, neither matched.
    const m4 = byRef(lines, 'M4');
    assert.equal(m4.status, 'unmatched');
    assert.deepEqual(
      m4.suggestions.map((x: any) => x.invoice_id).sort((a: number, b: number) => a - b),
      [shared, sharedOther],
    );
    for (const ref of ['M5', 'M6']) {
      const t = byRef(lines, ref);
      assert.deepEqual([t.status, t.suggestions], ['unmatched', []]);
    }

    // Unmatch: the payments leave the ledger and the invoices are open again.
    const undone = await api.post(`/bank-transactions/${m2.id}/unmatch`, {});
    assert.equal(undone.status, 200, undone.text);
    assert.equal(undone.body.data.status, 'unmatched');
    for (const id of [first, second]) {
      const inv = await readIncoming(id);
      assert.deepEqual([inv.status, inv.payment_status, inv.paid_total], ['approved', 'unpaid', 0]);
      assert.deepEqual(await ledgerOf(id), []);
    }

    // By hand, in the existing body: the partial line on its invoice, the rest stays open.
    const manual = await api.post(`/bank-transactions/${m3.id}/match`, {
      allocations: [{ invoice_id: partial, amount: 200 }],
    });
    assert.equal(manual.status, 200, manual.text);
    assert.deepEqual(
      manual.body.data.matches.map((m: any) => [m.invoice_id, m.amount, m.origin, m.invoice_kind]),
      [[partial, 200, 'manual', 'incoming']],
    );
    const after = await readIncoming(partial);
    assert.deepEqual([after.paid_total, after.payment_status], [200, 'partially_paid']);
    assert.equal((await ledgerOf(partial))[0].bank_transaction_id, m3.id);
  });

  it('MT940: a debit line with the supplier’s number in SVWZ+ is matched', async () => {
    const id = await incoming('RG 77312', 1499.99);
    const s = await upload(
      mt940([
        statement([
          {
            booking: '2026-05-06',
            amount: -149999,
            name: 'Buero-Bedarf AG',
            iban: SUPPLIER_IBAN,
            text: 'Rechnung RG77312 vom 28.04.2026 Kundennr 10442',
            ref: 'T1',
          },
        ]),
      ]),
      'out.sta',
    );
    assert.equal(s.matched, 1);
    const [t] = await linesOf(s.id);
    assert.deepEqual(
      t.matches.map((m: any) => [m.invoice_id, m.amount]),
      [[id, 1499.99]],
    );
    assert.equal((await ledgerOf(id))[0].bank_transaction_id, t.id);
  });

  it('manual match of money out: 422 for ids that are no incoming invoice of ours, nothing changes', async () => {
    const mine = await incoming('X-5001', 100);
    const theirs = await incoming('X-5002', 100, undefined, foreign);
    const s = await upload(
      camt('053', statement([{ booking: '2026-05-07', amount: -10000, text: 'no number', ref: 'F1' }])),
      'f.xml',
    );
    const [t] = await linesOf(s.id);
    for (const id of [theirs, 2147483000]) {
      const res = expectProblem(
        await api.post(`/bank-transactions/${t.id}/match`, {
          allocations: [{ invoice_id: id, amount: 100 }],
        }),
        422,
        'invalid_reference',
      );
      assert.equal(res.errors![0]!.field, 'allocations.0.invoice_id');
    }
    const over = expectProblem(
      await api.post(`/bank-transactions/${t.id}/match`, {
        allocations: [{ invoice_id: mine, amount: 101 }],
      }),
      422,
    );
    assert.equal(over.errors![0]!.field, 'allocations');
    assert.equal((await reader.get(`/bank-transactions/${t.id}`)).body.data.status, 'unmatched');
    assert.equal((await readIncoming(mine)).paid_total, 0);
    assert.equal((await foreign.get(`/incoming-invoices/${theirs}`)).body.data.paid_total, 0);
    expectProblem(
      await foreign.post(`/bank-transactions/${t.id}/match`, {
        allocations: [{ invoice_id: theirs, amount: 1 }],
      }),
      404,
    );
  });

  it('an invoice in SEPA transit paid by hand is no longer in transit', async () => {
    const id = await incoming('T-1', 80);
    const run = await api.post('/sepa/credit-transfers', {
      payment_account_id: accountId,
      execution_date: daysFromNow(1),
      invoices: [{ incoming_invoice_id: id }],
    });
    assert.equal(run.status, 201, run.text);
    assert.equal((await readIncoming(id)).payment_in_transit, run.body.data.id);
    const paid = await api.post('/payments/incoming-invoice', {
      amount: 80,
      date: daysFromNow(0),
      incoming_invoice_id: id,
    });
    assert.equal(paid.status, 201, paid.text);
    const inv = await readIncoming(id);
    assert.deepEqual([inv.payment_status, inv.payment_in_transit], ['paid', null]);
    // The run's item follows: it pays nothing any more, in the run and in the list of runs.
    const again = (await reader.get(`/sepa/credit-transfers/${run.body.data.id}`)).body.data;
    assert.deepEqual(
      again.items.map((i: any) => [i.invoice_id, i.status, i.bank_transaction_id]),
      [[id, 'paid_otherwise', null]],
    );
    const listed = (await reader.get('/sepa/credit-transfers?per_page=100')).body.data;
    assert.equal(listed.find((r: any) => r.id === run.body.data.id).items[0].status, 'paid_otherwise');
  });
});
