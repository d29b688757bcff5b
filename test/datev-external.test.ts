import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { importData } from '../src/import/index.js';
import { cents, exportDatev, vatFigures } from './accounting.fixtures.js';
import { type Api, describeEachDb, expectProblem, multipart } from './helpers.js';
import { ALL_INVOICE_SCOPES, line, makeClient } from './invoicing.fixtures.js';

/**
 * Invoices made elsewhere (POST /outgoing-invoices/external) in the tax adviser's month: they
 * keep no frozen document, so the DATEV export books them from the totals per rate their lines
 * stored, their uploaded PDFs go into the Belegbilder, their payments export as any other, and
 * the VAT return, OSS report and receivables ageing count them. The OSS revenue account is a
 * setting of the profile (`accounting.accounts.revenue_oss`) that the rows follow.
 */

type Doc = { id: number; number: string; pdf: Buffer };

describeEachDb('DATEV export of invoices made elsewhere', (ctx) => {
  let api: Api;
  let exporter: Api;
  const doc = {} as Record<'domestic' | 'credit' | 'oss' | 'rc', Doc>;

  /** Uploads an invoice made elsewhere with its PDF. */
  const upload = async (data: Record<string, unknown>): Promise<Doc> => {
    const pdf = Buffer.from(`%PDF-1.4\n% ${data.invoice_number} made elsewhere\n%%EOF\n`);
    const form = await multipart(
      { name: `${data.invoice_number}.pdf`, type: 'application/pdf', data: pdf },
      { data: JSON.stringify(data) },
    );
    const res = await api.request('POST', '/outgoing-invoices/external', form.body, form.headers);
    assert.equal(res.status, 201, res.text);
    return { id: res.body.data.id, number: res.body.data.invoice_number, pdf };
  };

  before(async () => {
    await importData(
      ctx.db,
      { payment_accounts: [{ key: 'bank', name: 'Business account' }] },
      { accountId: ctx.account.accountId },
    );
    api = await ctx.as([...ALL_INVOICE_SCOPES, 'account:read', 'account:write']);
    exporter = await ctx.as('accounting:export');
    const settings = await api.patch('/account/profile', {
      accounting: { datev_consultant_number: 1001, datev_client_number: 42 },
    });
    assert.equal(settings.status, 200, settings.text);
    const bankId = (await api.get('/payment-accounts')).body.data[0].id;

    const de = await makeClient(api, { name: 'Müller & Söhne GmbH' });
    const consumer = await makeClient(api, {
      name: 'Jörg Größl',
      street: 'Hauptstraße 1',
      zip: '1010',
      city: 'Wien',
      country_code: 'AT',
    });
    const business = await makeClient(api, {
      name: 'Wiener Agentur',
      country_code: 'AT',
      vat_id: 'ATU12345678',
    });
    doc.domestic = await upload({
      invoice_number: 'EXT-9-1',
      client_id: de,
      date: '2026-09-04',
      line_items: [line(100), line(50, { tax_rate: 7 })],
    });
    doc.credit = await upload({
      type: 'credit',
      invoice_number: 'EXT-9-2',
      client_id: de,
      credited_invoice_id: doc.domestic.id,
      date: '2026-09-10',
      line_items: [line(-20)],
    });
    doc.oss = await upload({
      invoice_number: 'EXT-9-3',
      client_id: consumer,
      date: '2026-09-12',
      line_items: [line(100, { tax_rate: 20 })],
    });
    doc.rc = await upload({
      invoice_number: 'EXT-9-4',
      client_id: business,
      date: '2026-09-15',
      tax_exemption_category: 'AE',
      tax_exemption_reason: 'Reverse charge',
      line_items: [line(200, { tax_rate: 0 })],
    });
    const paid = await api.post('/payments/outgoing-invoice', {
      invoice_id: doc.domestic.id,
      amount: 100,
      date: '2026-09-20',
      payment_account_id: bankId,
    });
    assert.equal(paid.status, 201, paid.text);
  });

  /** Exports September (optionally with the documents) and unzips the file as served. */
  const exportSeptember = (documents = false) =>
    exportDatev(exporter, { date_from: '2026-09-01', date_to: '2026-09-30', documents });

  // Amount, side, account, contra, BU key, date, Belegfeld 1, fields 40, 41, 123.
  const pick = (r: string[]) => [0, 1, 6, 7, 8, 9, 10, 39, 40, 122].map((i) => r[i]).join(' ');

  it('books them per rate from their stored line totals; their payment as any other', async () => {
    const { rows } = await exportSeptember();
    for (const r of rows) assert.equal(r.length, 125);
    assert.deepEqual(rows.map(pick), [
      '53,50 "S" 10000 8300  0409 "EXT-9-1"   ',
      '119,00 "S" 10000 8400  0409 "EXT-9-1"   ',
      '23,80 "H" 10000 8400  1009 "EXT-9-2"   ',
      '120,00 "S" 10001 8320 "240" 1209 "EXT-9-3" "AT" 20,00 "DE123456789"',
      '200,00 "S" 10002 8336  1509 "EXT-9-4" "ATU12345678"  ',
      '100,00 "S" 1200 10000  2009 "EXT-9-1"   ',
    ]);
    assert.equal(rows[1]![13], '"Müller & Söhne GmbH"');
  });

  it('the sums reconcile with the VAT return, the OSS report and the invoices as the API answers them', async () => {
    const { rows } = await exportSeptember();
    const vat = (await exporter.get('/reports/vat-return?period=2026-09')).body.data;
    const figures = vatFigures(vat);
    // 81: 100 − 20 at 19 %; 86: 50 at 7 %; 21: 200 reverse charge; the OSS sale is not here.
    assert.deepEqual(figures, {
      '81': [80, 15.2],
      '86': [50, 3.5],
      '21': [200, null],
      '83': [null, 18.7],
    });
    const documents = vat.figures.find((f: { kennzahl: string }) => f.kennzahl === '81').documents;
    assert.deepEqual(
      documents.map((d: { number: string }) => d.number),
      ['EXT-9-1', 'EXT-9-2'],
    );
    // Revenue rows (not OSS) per account equal the return's base plus tax.
    const revenue = (account: string) =>
      rows.filter((r) => r[7] === account && r[8] === '').reduce((s, r) => s + cents(r), 0);
    assert.equal(revenue('8400'), 8000 + 1520);
    assert.equal(revenue('8300'), 5000 + 350);
    assert.equal(revenue('8336'), 20000);

    const oss = (await exporter.get('/reports/oss?period=2026-Q3')).body.data;
    assert.deepEqual(
      oss.countries.map((c: { country: string; rates: { rate: number; base: number; tax: number }[] }) => [
        c.country,
        c.rates.map((r) => [r.rate, r.base, r.tax]),
      ]),
      [['AT', [[20, 100, 20]]]],
    );
    assert.equal(
      rows.filter((r) => r[8] === '"240"').reduce((s, r) => s + cents(r), 0),
      12000,
    );

    // Every debtor row against the uploads' gross as the API answers it, less the payment.
    const gross = await Promise.all(
      Object.values(doc).map(async (d) =>
        Math.round((await api.get(`/outgoing-invoices/${d.id}`)).body.data.gross_total * 100),
      ),
    );
    const debtors = rows.reduce(
      (s, r) => s + (/^1000\d$/.test(r[6]!) ? cents(r) : 0) - (/^1000\d$/.test(r[7]!) ? cents(r) : 0),
      0,
    );
    assert.equal(debtors, gross.reduce((s, g) => s + g, 0) - 10000);
  });

  it('the receivables ageing holds what is open of them', async () => {
    const r = (await exporter.get('/reports/receivables-ageing?date=2026-09-30')).body.data;
    const open = Object.fromEntries(
      r.clients.flatMap((c: { invoices: { number: string; open: number }[] }) =>
        c.invoices.map((i) => [i.number, i.open]),
      ),
    );
    assert.deepEqual(open, { 'EXT-9-1': 72.5, 'EXT-9-3': 120, 'EXT-9-4': 200 });
    assert.equal(r.totals.total, 392.5);
  });

  it('under the cash method the payment of an upload splits over its rates', async () => {
    assert.equal((await api.patch('/account/profile', { accounting: { vat_method: 'cash' } })).status, 200);
    try {
      const vat = (await exporter.get('/reports/vat-return?period=2026-09')).body.data;
      const figures = vatFigures(vat);
      // 100.00 over 119.00 and 53.50 gross: 68.99 and 31.01, each into net and tax.
      assert.deepEqual(figures, { '81': [57.97, 11.02], '86': [28.98, 2.03], '83': [null, 13.05] });
    } finally {
      await api.patch('/account/profile', { accounting: { vat_method: 'accrual' } });
    }
  });

  it('documents: true carries their uploaded PDFs, linked from their rows', async () => {
    const { record, files, rows } = await exportSeptember(true);
    assert.equal(record.documents, 4);
    const xml = Buffer.from(files['document.xml']!).toString('utf8');
    for (const d of Object.values(doc)) {
      const name = `AR_${d.id}_${d.number}.pdf`;
      assert.deepEqual(Buffer.from(files[name]!), d.pdf, `${name}: the uploaded bytes`);
      const guid = new RegExp(
        `<document guid="([0-9a-f-]{36})" type="2"[^>]*>\\s*<extension xsi:type="File" name="${name}"/>`,
      ).exec(xml)?.[1];
      assert.ok(guid, `${name} in document.xml`);
      const own = rows.filter((r) => r[10] === `"${d.number}"` && !/^1200$/.test(r[6]!));
      assert.ok(own.length > 0);
      for (const r of own) assert.equal(r[19], `"BEDI ""${guid}"""`);
    }
    const payment = rows.find((r) => r[6] === '1200')!;
    assert.equal(payment[19], '', 'payments link nothing');
  });

  it('an upload whose line totals were not stored has its lines added up: the same rows', async () => {
    const before = (await exportSeptember()).rows.map(pick);
    const row = () => ctx.db.updateTable('outgoing_invoices').where('id', '=', doc.domestic.id);
    const kept = await ctx.db
      .selectFrom('outgoing_invoices')
      .select('lines_taxes')
      .where('id', '=', doc.domestic.id)
      .executeTakeFirstOrThrow();
    await row().set({ lines_taxes: null }).execute();
    try {
      assert.deepEqual((await exportSeptember()).rows.map(pick), before);
    } finally {
      await row().set({ lines_taxes: kept.lines_taxes }).execute();
    }
  });

  it('the OSS revenue account is a setting: the rows follow a changed one, null returns to the chart’s', async () => {
    const accounts = async () => (await api.get('/account/profile')).body.data.accounting.accounts;
    assert.equal((await accounts()).revenue_oss, '8320');
    const changed = await api.patch('/account/profile', {
      accounting: { accounts: { revenue_oss: '8338' } },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await accounts()).revenue_oss, '8338');
    const oss = (await exportSeptember()).rows.filter((r) => r[8] === '"240"');
    assert.deepEqual(
      oss.map((r) => r[7]),
      ['8338'],
    );
    // Bounded like its neighbours: digits of the account length; nothing changes on a refusal.
    for (const bad of ['83x0', '832', '83200']) {
      const p = expectProblem(
        await api.patch('/account/profile', { accounting: { accounts: { revenue_oss: bad } } }),
        422,
      );
      assert.ok(
        (p.errors ?? []).some((e: { field: string }) => e.field.endsWith('revenue_oss')),
        JSON.stringify(p.errors),
      );
    }
    assert.equal((await accounts()).revenue_oss, '8338');
    assert.equal(
      (await api.patch('/account/profile', { accounting: { accounts: { revenue_oss: null } } })).status,
      200,
    );
    assert.equal((await accounts()).revenue_oss, '8320');
    assert.deepEqual(
      (await exportSeptember()).rows.filter((r) => r[8] === '"240"').map((r) => r[7]),
      ['8320'],
    );
  });

  it('an account left at the default follows the chart and the account length', async () => {
    const other = await ctx.as(['account:read', 'account:write'], {
      accountId: ctx.other.accountId,
      userId: ctx.other.users.admin,
    });
    const set = async (accounting: Record<string, unknown>) => {
      const res = await other.patch('/account/profile', { accounting });
      assert.equal(res.status, 200, res.text);
      return res.body.data.accounting.accounts.revenue_oss;
    };
    assert.equal(await set({ chart: 'SKR04' }), '4320');
    assert.equal(await set({ account_length: 6 }), '432000');
    assert.equal(await set({ accounts: { revenue_oss: '433000' } }), '433000');
    assert.equal(await set({ chart: 'SKR03' }), '433000', 'chosen by hand: kept');
    assert.equal(await set({ accounts: { revenue_oss: null } }), '832000');
  });
});
