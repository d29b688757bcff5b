import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import {
  BANKING_SCOPES,
  daysFromNow,
  makePaymentAccount,
  makeSupplier,
  OTHER_IBAN,
  OWN_BIC,
  OWN_IBAN,
  SUPPLIER_BIC,
  SUPPLIER_IBAN,
} from './bank.fixtures.js';
import { type Api, describeEachDb, multipart } from './helpers.js';
import { bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

/**
 * One CAMT.053 entry written as a German bank writes an R-transaction (DK camt.053.001.08):
 * the booked direction and amount, `RvslInd` for a reversal, the return reason in `RtrInf`, and
 * the parties of the payment it takes back (debtor and creditor as in that payment).
 */
interface RawEntry {
  ind: 'CRDT' | 'DBIT';
  /** Euros, as the file writes them. */
  amount: string;
  reversal?: boolean;
  reason?: string;
  e2e: string;
  ref: string;
  debtor: { name: string; iban: string };
  creditor: { name: string; iban: string };
  text: string;
  /** DK's business transaction code (GVC) in `BkTxCd/Prtry`. */
  gvc: string;
}

const entryXml = (e: RawEntry, day: string) =>
  `<Ntry><Amt Ccy="EUR">${e.amount}</Amt><CdtDbtInd>${e.ind}</CdtDbtInd>${e.reversal ? '<RvslInd>true</RvslInd>' : ''}` +
  `<Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>${day}</Dt></BookgDt><ValDt><Dt>${day}</Dt></ValDt>` +
  `<AcctSvcrRef>${e.ref}</AcctSvcrRef>` +
  `<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>${e.gvc === '109' ? 'RDDT' : 'RCDT'}</Cd><SubFmlyCd>${e.reason ? 'UPDD' : 'RRTN'}</SubFmlyCd></Fmly></Domn>` +
  `<Prtry><Cd>NTRF+${e.gvc}+00931</Cd><Issr>DK</Issr></Prtry></BkTxCd>` +
  '<NtryDtls><TxDtls>' +
  `<Refs><EndToEndId>${e.e2e}</EndToEndId></Refs>` +
  `<Amt Ccy="EUR">${e.amount}</Amt><CdtDbtInd>${e.ind}</CdtDbtInd>` +
  '<RltdPties>' +
  `<Dbtr><Pty><Nm>${e.debtor.name}</Nm></Pty></Dbtr><DbtrAcct><Id><IBAN>${e.debtor.iban}</IBAN></Id></DbtrAcct>` +
  `<Cdtr><Pty><Nm>${e.creditor.name}</Nm></Pty></Cdtr><CdtrAcct><Id><IBAN>${e.creditor.iban}</IBAN></Id></CdtrAcct>` +
  '</RltdPties>' +
  `<RmtInf><Ustrd>${e.text}</Ustrd></RmtInf>` +
  (e.reason ? `<RtrInf><Rsn><Cd>${e.reason}</Cd></Rsn><AddtlInf>${e.text}</AddtlInf></RtrInf>` : '') +
  '</TxDtls></NtryDtls></Ntry>';

const camt053 = (id: string, day: string, entries: RawEntry[]) =>
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>' +
  `<GrpHdr><MsgId>MSG-${id}</MsgId><CreDtTm>${day}T18:00:00</CreDtTm></GrpHdr>` +
  `<Stmt><Id>${id}</Id><CreDtTm>${day}T18:00:00</CreDtTm>` +
  `<Acct><Id><IBAN>${OWN_IBAN}</IBAN></Id><Ccy>EUR</Ccy><Svcr><FinInstnId><BICFI>${OWN_BIC}</BICFI></FinInstnId></Svcr></Acct>` +
  entries.map((e) => entryXml(e, day)).join('') +
  '</Stmt></BkToCstmrStmt></Document>\n';

const US = { name: 'Mueller und Soehne GmbH', iban: OWN_IBAN };
const DEBTOR = { name: 'Kunde Sauer KG', iban: OTHER_IBAN };
const SUPPLIER = { name: 'Buero-Bedarf AG', iban: SUPPLIER_IBAN };

/** R-transactions in both directions, from CAMT and MT940 written here, on both databases. */
describeEachDb('returned and reversed SEPA payments on the statement', (ctx) => {
  let api: Api;
  let accountId: number;
  let supplier: number;
  let seq = 0;

  before(async () => {
    api = await ctx.as([...BANKING_SCOPES, 'incoming-invoice:read', 'incoming-invoice:write']);
    accountId = await makePaymentAccount(api, { bic: OWN_BIC });
    supplier = await makeSupplier(api, { name: 'Büro-Bedarf AG', iban: SUPPLIER_IBAN, bic: SUPPLIER_BIC });
    const profile = await api.patch('/account/profile', {
      name: 'Müller & Söhne GmbH',
      sepa_creditor_identifier: 'DE98ZZZ09999999999',
    });
    assert.equal(profile.status, 200, profile.text);
  });

  const upload = async (data: string, name = 's.xml') => {
    const { body, headers } = await multipart({ name, type: 'application/octet-stream', data });
    const res = await api.request('POST', '/bank-statements', body, headers);
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };
  const linesOf = async (e2e: string) => (await api.get(`/bank-transactions?q=${e2e}`)).body.data as any[];
  const itemOf = async (kind: 'direct-debits' | 'credit-transfers', run: number) =>
    (await api.get(`/sepa/${kind}/${run}`)).body.data.items[0];

  /** A booked invoice collected by a pain.008 whose collection a statement confirmed. */
  const collected = async (net: number) => {
    const client = await makeClient(api, { name: `Kunde ${++seq}` });
    const m = await api.post(`/clients/${client}/sepa-mandates`, {
      reference: `RC-${seq}`,
      signed_on: '2026-01-02',
      iban: OTHER_IBAN,
    });
    assert.equal(m.status, 201, m.text);
    const invoice = (
      await bookNow(api, (await makeInvoice(api, { client_id: client, line_items: [line(net)] })).id)
    ).id as number;
    const run = (
      await api.post('/sepa/direct-debits', {
        payment_account_id: accountId,
        collection_date: daysFromNow(30),
        invoices: [{ invoice_id: invoice }],
      })
    ).body.data;
    const e2e = run.items[0].end_to_end_id as string;
    const amount = run.items[0].amount.toFixed(2);
    const got = await upload(
      camt053(`DD-IN-${seq}`, daysFromNow(30), [
        {
          ind: 'CRDT',
          amount,
          e2e,
          ref: `DDIN${seq}`,
          debtor: DEBTOR,
          creditor: US,
          text: 'Lastschrift',
          gvc: '105',
        },
      ]),
    );
    assert.equal(got.matched, 1);
    const paid = (await api.get(`/outgoing-invoices/${invoice}`)).body.data;
    assert.equal(paid.payment_status, 'paid');
    return { invoice, run: run.id as number, e2e, amount, mandate: m.body.data.id as number };
  };

  /** An incoming invoice paid by a pain.001 whose transfer a statement confirmed. */
  const transferred = async (gross: number) => {
    const doc = await api.post('/incoming-invoices', {
      gross_total: gross,
      supplier_id: supplier,
      invoice_number: `ER-${++seq}`,
    });
    assert.equal(doc.status, 201, doc.text);
    const run = (
      await api.post('/sepa/credit-transfers', {
        payment_account_id: accountId,
        execution_date: daysFromNow(1),
        invoices: [{ incoming_invoice_id: doc.body.data.id }],
      })
    ).body.data;
    const e2e = run.items[0].end_to_end_id as string;
    const amount = run.items[0].amount.toFixed(2);
    const got = await upload(
      camt053(`CT-OUT-${seq}`, daysFromNow(1), [
        {
          ind: 'DBIT',
          amount,
          e2e,
          ref: `CTOUT${seq}`,
          debtor: US,
          creditor: SUPPLIER,
          text: `ER-${seq}`,
          gvc: '116',
        },
      ]),
    );
    assert.equal(got.matched, 1);
    const id = doc.body.data.id as number;
    assert.equal((await api.get(`/incoming-invoices/${id}`)).body.data.payment_status, 'paid');
    return { id, run: run.id as number, e2e, amount };
  };

  it('CAMT DBIT with RtrInf MD06 (money out): the collection is undone, the reason kept, the debtor named', async () => {
    const c = await collected(200); // 238.00
    const back = await upload(
      camt053(`DD-BACK-${seq}`, daysFromNow(40), [
        {
          ind: 'DBIT',
          amount: c.amount,
          reason: 'MD06',
          e2e: c.e2e,
          ref: `DDBACK${seq}`,
          debtor: DEBTOR,
          creditor: US,
          text: 'Rueckgabe Erstattungsanspruch',
          gvc: '109',
        },
      ]),
    );
    assert.deepEqual([back.entries_new, back.matched], [1, 0]);
    const inv = (await api.get(`/outgoing-invoices/${c.invoice}`)).body.data;
    assert.deepEqual([inv.payment_status, inv.open_total], ['unpaid', 238]);
    assert.equal((await api.get(`/payments?invoice_id=${c.invoice}`)).body.data.length, 0);
    const out = (await linesOf(c.e2e)).find((t) => t.amount < 0);
    // The return repeats the collection's parties: the other side is the debtor, not us.
    assert.deepEqual(
      [out.amount, out.status, out.return_reason, out.counterparty_name, out.counterparty_iban],
      [-238, 'ignored', 'MD06', DEBTOR.name, DEBTOR.iban],
    );
    const item = await itemOf('direct-debits', c.run);
    assert.deepEqual([item.status, item.bank_transaction_id], ['returned', out.id]);
    assert.equal((await api.get(`/sepa-mandates/${c.mandate}`)).body.data.sequence, 'first');
  });

  it('CAMT DBIT with RvslInd (money in): our credit transfer reversed, the incoming invoice open again', async () => {
    const t = await transferred(119);
    const back = await upload(
      camt053(`CT-RV-${seq}`, daysFromNow(3), [
        {
          ind: 'DBIT',
          reversal: true,
          amount: t.amount,
          e2e: t.e2e,
          ref: `CTRV${seq}`,
          debtor: US,
          creditor: SUPPLIER,
          text: 'Storno',
          gvc: '116',
        },
      ]),
    );
    assert.deepEqual([back.entries_new, back.matched], [1, 0]);
    const lines = await linesOf(t.e2e);
    const reversed = lines.find((l) => l.amount > 0);
    assert.deepEqual(
      [reversed.amount, reversed.status, reversed.return_reason, reversed.counterparty_iban],
      [119, 'ignored', 'RVSL', SUPPLIER_IBAN],
    );
    assert.equal(lines.find((l) => l.amount < 0).status, 'ignored');
    const doc = (await api.get(`/incoming-invoices/${t.id}`)).body.data;
    assert.deepEqual([doc.payment_status, doc.payment_in_transit], ['unpaid', null]);
    assert.equal((await api.get(`/payments?incoming_invoice_id=${t.id}`)).body.data.length, 0);
    assert.equal((await itemOf('credit-transfers', t.run)).status, 'returned');
    // Open again: it can be paid by a new transfer.
    const again = await api.post('/sepa/credit-transfers', {
      payment_account_id: accountId,
      execution_date: daysFromNow(4),
      invoices: [{ incoming_invoice_id: t.id }],
    });
    assert.equal(again.status, 201, again.text);
  });

  it('CAMT CRDT with RtrInf AC04 (money in): a transfer returned by the payee’s bank; a wrong amount is left alone', async () => {
    const t = await transferred(50);
    const other = await transferred(70);
    const back = await upload(
      camt053(`CT-RT-${seq}`, daysFromNow(5), [
        {
          ind: 'CRDT',
          amount: t.amount,
          reason: 'AC04',
          e2e: t.e2e,
          ref: `CTRT${seq}`,
          debtor: US,
          creditor: SUPPLIER,
          text: 'Konto erloschen',
          gvc: '159',
        },
        // A fee kept back: not the transfer's amount, so nothing is undone.
        {
          ind: 'CRDT',
          amount: '69.50',
          reason: 'AC04',
          e2e: other.e2e,
          ref: `CTRT2${seq}`,
          debtor: US,
          creditor: SUPPLIER,
          text: 'Konto erloschen',
          gvc: '159',
        },
      ]),
    );
    assert.equal(back.entries_new, 2);
    const returned = (await linesOf(t.e2e)).find((l) => l.amount > 0);
    assert.deepEqual(
      [returned.amount, returned.status, returned.return_reason, returned.counterparty_name],
      [50, 'ignored', 'AC04', SUPPLIER.name],
    );
    assert.equal((await api.get(`/incoming-invoices/${t.id}`)).body.data.payment_status, 'unpaid');
    const kept = (await linesOf(other.e2e)).find((l) => l.amount > 0);
    assert.deepEqual([kept.status, kept.return_reason], ['unmatched', 'AC04']);
    assert.equal((await api.get(`/incoming-invoices/${other.id}`)).body.data.payment_status, 'paid');
    assert.equal((await itemOf('credit-transfers', other.run)).status, 'confirmed');
  });

  it('MT940 RC and RD marks: reversals of a collection (money out) and of a transfer (money in)', async () => {
    const c = await collected(10); // 11.90
    const t = await transferred(33.33);
    const day = daysFromNow(45);
    const yymmdd = day.slice(2).replace(/-/g, '');
    const cents = (s: string) => s.replace('.', ',');
    const text = [
      ':20:STARTUMS',
      `:25:${OWN_IBAN}`,
      ':28C:00001/001',
      `:60F:C${yymmdd}EUR1000,00`,
      // No GVC 109 here: the RC mark alone says reversal; the reason is read from the text.
      `:61:${yymmdd}${yymmdd.slice(2)}RCR${cents(c.amount)}NDDT${c.e2e}//RC-${seq}`,
      `:86:105?00STORNO LASTSCHRIFT?20EREF+${c.e2e}?21SVWZ+MS02 WIDERSPRUCH?32Kunde Sauer KG`,
      `:61:${yymmdd}${yymmdd.slice(2)}RDR${cents(t.amount)}NTRF${t.e2e}//RD-${seq}`,
      `:86:116?00STORNO UEBERWEISUNG?20EREF+${t.e2e}?21SVWZ+ER-${seq}?32Buero-Bedarf AG`,
      `:62F:C${yymmdd}EUR1021,43`,
      '-',
      '',
    ].join('\r\n');
    const res = await upload(text, 's.sta');
    assert.equal(res.entries_new, 2);
    const rc = (await linesOf(c.e2e)).find((l) => l.amount < 0);
    assert.deepEqual([rc.amount, rc.status, rc.return_reason], [-11.9, 'ignored', 'MS02']);
    assert.equal((await api.get(`/outgoing-invoices/${c.invoice}`)).body.data.payment_status, 'unpaid');
    const rd = (await linesOf(t.e2e)).find((l) => l.amount > 0);
    assert.deepEqual([rd.amount, rd.status, rd.return_reason], [33.33, 'ignored', 'RVSL']);
    assert.equal((await api.get(`/incoming-invoices/${t.id}`)).body.data.payment_status, 'unpaid');
    assert.equal((await itemOf('credit-transfers', t.run)).status, 'returned');
  });
});
