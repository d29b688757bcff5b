import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import {
  BANKING_SCOPES,
  daysFromNow,
  makePaymentAccount,
  OTHER_IBAN,
  OWN_BIC,
  SUPPLIER_IBAN,
} from './bank.fixtures.js';
import { type Api, countRows, describeEachDb, expectProblem } from './helpers.js';
import { bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

/** Another account at the bank of OTHER_IBAN (bank code 51210800). */
const SAME_BANK_IBAN = 'DE82512108000000012345';
/** Accounts in a country whose bank code the table does not hold: the BIC decides. */
const BG_IBAN = 'BG80BNBG96611020345678';
const BG_IBAN_2 = 'BG53BNBG96611020345679';

/** The text of each `tag` in file order. */
const all = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1]!);

/** Mandate amendments (PATCH /sepa-mandates/{id}) and how the next pain.008 reports them. */
describeEachDb('SEPA mandate amendments', (ctx) => {
  let api: Api;
  let reader: Api;
  let foreign: Api;
  let accountId: number;
  let seq = 0;

  before(async () => {
    api = await ctx.as(BANKING_SCOPES);
    reader = await ctx.as('banking:read');
    foreign = await ctx.as(['banking:read', 'banking:write', 'client:read', 'client:write'], {
      userId: ctx.other.users.admin,
    });
    accountId = await makePaymentAccount(api, { bic: OWN_BIC });
    const profile = await api.patch('/account/profile', {
      name: 'Müller & Söhne GmbH',
      sepa_creditor_identifier: 'DE98ZZZ09999999999',
    });
    assert.equal(profile.status, 200, profile.text);
  });

  const mandateFor = async (extra: Record<string, unknown> = {}) => {
    const client = await makeClient(api, { name: `Kunde ${++seq}` });
    const res = await api.post(`/clients/${client}/sepa-mandates`, {
      reference: `MA-${seq}`,
      signed_on: '2026-01-02',
      iban: OTHER_IBAN,
      bic: 'GENODEF1S04',
      ...extra,
    });
    assert.equal(res.status, 201, res.text);
    return { client, mandate: res.body.data };
  };
  /** A pain.008 collecting one new invoice of the client: the run and its file. */
  const collect = async (client: number, net = 100) => {
    const invoice = (
      await bookNow(api, (await makeInvoice(api, { client_id: client, line_items: [line(net)] })).id)
    ).id as number;
    const run = await api.post('/sepa/direct-debits', {
      payment_account_id: accountId,
      collection_date: daysFromNow(30),
      invoices: [{ invoice_id: invoice }],
    });
    assert.equal(run.status, 201, run.text);
    const xml = (await reader.get(run.body.data.file_url.replace('/api/v1', ''))).text;
    return { run: run.body.data, xml };
  };
  const amend = (id: number, body: Record<string, unknown>, as = api) =>
    as.patch(`/sepa-mandates/${id}`, body);
  const auditOf = (id: number) =>
    ctx.db
      .selectFrom('audit_log')
      .selectAll()
      .where('target_type', '=', 'sepa_mandate')
      .where('target_id', '=', String(id))
      .orderBy('id')
      .execute();

  it('a mandate not collected on yet: amended in place, nothing to report; the name goes into the file', async () => {
    const { client, mandate } = await mandateFor();
    const res = await amend(mandate.id, {
      reference: `MA-NEW-${seq}`,
      iban: SUPPLIER_IBAN,
      bic: null,
      debtor_name: 'Jörg Kunde & Frau',
    });
    assert.equal(res.status, 200, res.text);
    const m = res.body.data;
    assert.deepEqual(
      [m.reference, m.iban, m.bic, m.debtor_name, m.sequence, m.pending_amendment],
      [`MA-NEW-${seq}`, SUPPLIER_IBAN, null, 'Jörg Kunde & Frau', 'first', null],
    );
    assert.deepEqual((await reader.get(`/sepa-mandates/${mandate.id}`)).body.data, m);
    const { run, xml } = await collect(client);
    assert.equal(run.items[0].name, 'Joerg Kunde + Frau');
    assert.equal(run.items[0].sequence_type, 'FRST');
    assert.doesNotMatch(xml, /AmdmntInd/);
    assert.deepEqual(all(xml, 'MndtId'), [`MA-NEW-${seq}`]);
    // The same values again change nothing and record nothing.
    const before = (await auditOf(mandate.id)).length;
    assert.equal((await amend(mandate.id, { iban: SUPPLIER_IBAN })).status, 200);
    assert.equal((await auditOf(mandate.id)).length, before);
  });

  it('a new reference: the next collection carries AmdmntInd and OrgnlMndtId, once; RCUR stays', async () => {
    const { client, mandate } = await mandateFor();
    const first = await collect(client);
    assert.equal(first.run.items[0].sequence_type, 'FRST');
    const res = await amend(mandate.id, { reference: `MA-R-${seq}` });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.pending_amendment, {
      original_reference: `MA-${seq}`,
      original_iban: null,
      debtor_bank_changed: false,
    });
    // A second amendment keeps what the bank saw as the original.
    await amend(mandate.id, { reference: `MA-R2-${seq}` });
    const next = await collect(client);
    assert.equal(next.run.items[0].sequence_type, 'RCUR');
    assert.deepEqual(all(next.xml, 'MndtId'), [`MA-R2-${seq}`]);
    assert.deepEqual(all(next.xml, 'AmdmntInd'), ['true']);
    assert.deepEqual(all(next.xml, 'OrgnlMndtId'), [`MA-${seq}`]);
    assert.doesNotMatch(next.xml, /OrgnlDbtrAcct|OrgnlDbtrAgt/);
    // Reported: the mandate has nothing pending, the file after says nothing.
    assert.equal((await reader.get(`/sepa-mandates/${mandate.id}`)).body.data.pending_amendment, null);
    assert.doesNotMatch((await collect(client)).xml, /AmdmntInd/);
    const audit = await auditOf(mandate.id);
    assert.deepEqual(
      audit.map((r) => [r.action, r.actor_kind, r.actor_user_id]),
      [
        ['sepa_mandate.create', 'token', ctx.account.users.admin],
        ['sepa_mandate.amend', 'token', ctx.account.users.admin],
        ['sepa_mandate.amend', 'token', ctx.account.users.admin],
      ],
    );
    const detail = JSON.parse(audit[1]!.detail!);
    assert.deepEqual([detail.changed, detail.reference], [['reference'], `MA-R-${seq}`]);
  });

  it('a new IBAN at the same bank: OrgnlDbtrAcct with the IBAN before, RCUR', async () => {
    const { client, mandate } = await mandateFor();
    await collect(client);
    const res = await amend(mandate.id, { iban: 'DE82 5121 0800 0000 0123 45' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      [res.body.data.iban, res.body.data.sequence, res.body.data.pending_amendment],
      [
        SAME_BANK_IBAN,
        'recurring',
        { original_reference: null, original_iban: OTHER_IBAN, debtor_bank_changed: false },
      ],
    );
    const next = await collect(client);
    assert.equal(next.run.items[0].sequence_type, 'RCUR');
    assert.equal(next.run.items[0].iban, SAME_BANK_IBAN);
    assert.deepEqual(all(next.xml, 'OrgnlDbtrAcct'), [`<Id><IBAN>${OTHER_IBAN}</IBAN></Id>`]);
    assert.doesNotMatch(next.xml, /OrgnlDbtrAgt|OrgnlMndtId/);
    // The audit names the field, never the bank details themselves.
    const audit = await auditOf(mandate.id);
    assert.deepEqual(JSON.parse(audit.at(-1)!.detail!).changed, ['iban']);
    assert.ok(
      audit.every((r) => !/DE\d\d5121/.test(r.detail ?? '')),
      JSON.stringify(audit),
    );
  });

  it('a new IBAN at another bank: SMNDA as OrgnlDbtrAgt and a FRST, then RCUR again', async () => {
    const { client, mandate } = await mandateFor();
    await collect(client);
    const res = await amend(mandate.id, {
      iban: SUPPLIER_IBAN,
      bic: 'COBADEFFXXX',
      reference: `MA-B-${seq}`,
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      [res.body.data.sequence, res.body.data.pending_amendment],
      ['first', { original_reference: `MA-${seq}`, original_iban: OTHER_IBAN, debtor_bank_changed: true }],
    );
    const next = await collect(client);
    assert.equal(next.run.items[0].sequence_type, 'FRST');
    assert.deepEqual(all(next.xml, 'SeqTp'), ['FRST']);
    assert.deepEqual(all(next.xml, 'AmdmntInd'), ['true']);
    assert.deepEqual(all(next.xml, 'OrgnlMndtId'), [`MA-${seq}`]);
    assert.deepEqual(all(next.xml, 'OrgnlDbtrAgt'), ['<FinInstnId><Othr><Id>SMNDA</Id></Othr></FinInstnId>']);
    // The new bank gets no IBAN of another bank's account.
    assert.doesNotMatch(next.xml, /OrgnlDbtrAcct/);
    const after = (await reader.get(`/sepa-mandates/${mandate.id}`)).body.data;
    assert.deepEqual([after.sequence, after.pending_amendment], ['recurring', null]);
    const third = await collect(client);
    assert.equal(third.run.items[0].sequence_type, 'RCUR');
    assert.doesNotMatch(third.xml, /AmdmntInd/);
  });

  it('changed back before a collection: nothing to report; a country without bank codes goes by the BIC', async () => {
    const { client, mandate } = await mandateFor({ sequence: 'recurring' });
    await amend(mandate.id, { reference: `MA-X-${seq}`, iban: SAME_BANK_IBAN });
    const back = await amend(mandate.id, { reference: `MA-${seq}`, iban: OTHER_IBAN });
    assert.equal(back.body.data.pending_amendment, null);
    assert.doesNotMatch((await collect(client)).xml, /AmdmntInd/);

    const bg = await mandateFor({ iban: BG_IBAN, bic: 'BNBGBGSFXXX', sequence: 'recurring' });
    const sameBic = await amend(bg.mandate.id, { iban: BG_IBAN_2, bic: 'BNBGBGSF' });
    assert.equal(sameBic.status, 200, sameBic.text);
    assert.equal(sameBic.body.data.pending_amendment.debtor_bank_changed, false);
    const otherBic = await amend(bg.mandate.id, { bic: 'UNCRBGSFXXX' });
    assert.equal(otherBic.body.data.pending_amendment.debtor_bank_changed, true);
    assert.equal(otherBic.body.data.sequence, 'first');
  });

  it('401, 403, 404 (another tenant’s mandate), 422 (each field, empty, unknown), 409 (reference taken, revoked)', async () => {
    const { mandate } = await mandateFor();
    const taken = await mandateFor();
    expectProblem(await ctx.anon.patch(`/sepa-mandates/${mandate.id}`, { debtor_name: 'X' }), 401);
    expectProblem(await amend(mandate.id, { debtor_name: 'X' }, reader), 403, 'insufficient_scope');
    expectProblem(await amend(mandate.id, { debtor_name: 'X' }, foreign), 404);
    expectProblem(await amend(999_999, { debtor_name: 'X' }), 404);
    const theirs = (
      await foreign.post(`/clients/${await makeClient(foreign)}/sepa-mandates`, {
        reference: `THEIRS-${seq}`,
        signed_on: '2026-01-02',
        iban: OTHER_IBAN,
      })
    ).body.data;
    expectProblem(await amend(theirs.id, { debtor_name: 'X' }), 404);

    const audits = await countRows(ctx.db, 'audit_log');
    for (const [field, value] of [
      ['reference', 'WITH BLANK'],
      ['reference', 'A//B'],
      ['iban', 'DE00512108001245126199'],
      ['bic', 'NOPE1'],
      ['debtor_name', '<<>>'],
    ] as const) {
      const bad = expectProblem(await amend(mandate.id, { [field]: value }), 422);
      assert.equal(bad.errors![0]!.field, field, `${field}=${value}`);
    }
    expectProblem(await amend(mandate.id, {}), 422);
    expectProblem(await amend(mandate.id, { scheme: 'B2B' }), 422);
    expectProblem(await amend(mandate.id, { signed_on: '2026-01-03' }), 422);
    expectProblem(await amend(mandate.id, { reference: taken.mandate.reference }), 409, 'already_exists');
    assert.equal((await api.post(`/sepa-mandates/${mandate.id}/revoke`, {})).status, 200);
    expectProblem(await amend(mandate.id, { debtor_name: 'X' }), 409, 'conflict');
    // Nothing was written by a refusal: only the revocation is audited.
    assert.equal(await countRows(ctx.db, 'audit_log'), audits + 1);
    const m = (await reader.get(`/sepa-mandates/${mandate.id}`)).body.data;
    assert.deepEqual([m.reference, m.iban, m.debtor_name], [mandate.reference, OTHER_IBAN, null]);
  });
});
