import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, it } from 'node:test';
import { importData } from '../src/import/index.js';
import {
  BOOKINGS,
  cents,
  downloadExport,
  exportDatev,
  linesOf,
  PARTIES,
  readExport,
  unzipExport,
  vatFigures,
} from './accounting.fixtures.js';
import { camt } from './bank.fixtures.js';
import { type Api, describeEachDb, expectProblem, multipart } from './helpers.js';
import { type ChartIds, seedChart } from './incoming.fixtures.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

describeEachDb('accounting exports (DATEV, period lock)', (ctx) => {
  let api: Api;
  let exporter: Api;
  let chart: ChartIds;
  let bankId: number;
  const doc = {} as Record<'inv' | 'credit' | 'rc' | 'draft' | 'december', { id: number; number: string }>;
  let incomingId: number;
  let bookingId: number;
  const NAME = 'Bäckerei Groß €-Service GmbH';

  before(async () => {
    await importData(
      ctx.db,
      { payment_accounts: [{ key: 'bank', name: 'Business account' }] },
      { accountId: ctx.account.accountId },
    );
    chart = await seedChart(ctx);
    api = await ctx.as([
      ...ALL_INVOICE_SCOPES,
      'account:read',
      'account:write',
      'incoming-invoice:write',
      'chart-of-accounts:write',
    ]);
    exporter = await ctx.as('accounting:export');
    const settings = await api.patch('/account/profile', {
      accounting: { datev_consultant_number: 1001, datev_client_number: 42 },
    });
    assert.equal(settings.status, 200, settings.text);
    bankId = (await api.get('/payment-accounts')).body.data[0].id;

    const client = await makeClient(api, { name: NAME });
    const eu = await makeClient(api, { name: 'Wiener Agentur', country_code: 'AT', vat_id: 'ATU12345678' });
    const book = async (key: keyof typeof doc, body: Record<string, unknown>, booked = true) => {
      const inv = await makeInvoice(api, body);
      const b = booked ? await bookNow(api, inv.id) : inv;
      doc[key] = { id: inv.id, number: b.invoice_number };
    };
    await book('inv', {
      client_id: client,
      date: '2026-11-03',
      line_items: [line(100), line(50, { tax_rate: 7 })],
    });
    await book('credit', {
      type: 'credit',
      client_id: client,
      credited_invoice_id: doc.inv.id,
      date: '2026-11-10',
      line_items: [line(-20)],
    });
    await book('rc', {
      client_id: eu,
      date: '2026-11-12',
      tax_exemption_category: 'AE',
      line_items: [line(200, { tax_rate: 0 })],
    });
    await book('draft', { client_id: client, date: '2026-11-15', line_items: [line(10)] }, false);
    await book('december', { client_id: client, date: '2026-12-02', line_items: [line(10)] });
    const paid = await api.post('/payments/outgoing-invoice', {
      invoice_id: doc.inv.id,
      amount: 50,
      date: '2026-11-20',
      payment_account_id: bankId,
    });
    assert.equal(paid.status, 201, paid.text);

    const supplier = await api.post('/suppliers', {
      name: 'Büro Schmidt',
      chart_of_account_id: chart.office,
    });
    assert.equal(supplier.status, 201, supplier.text);
    const incoming = await api.post('/incoming-invoices', {
      supplier_id: supplier.body.data.id,
      invoice_number: 'ER-7',
      date: '2026-11-05',
      gross_total: 119,
      tax_total: 19,
      bookings: [{ chart_of_account_id: chart.office, amount: 119, tax_rate: 19 }],
    });
    assert.equal(incoming.status, 201, incoming.text);
    incomingId = incoming.body.data.id;
    // A service received from an Austrian business at 0 %: reverse charge (§ 13b), no supplier record.
    const rc = await api.post('/incoming-invoices', {
      supplier_name: 'Wien Hosting GmbH',
      supplier_country: 'AT',
      invoice_number: 'ER-9',
      date: '2026-11-07',
      gross_total: 100,
      bookings: [{ chart_of_account_id: chart.office, amount: 100, tax_rate: 0 }],
    });
    assert.equal(rc.status, 201, rc.text);
    bookingId = (
      await ctx.as('chart-of-accounts:read').then((r) => r.get('/chart-of-accounts/bookings'))
    ).body.data.find((b: { incoming_invoice_id: number }) => b.incoming_invoice_id === incomingId).id;
    const out = await api.post('/payments/incoming-invoice', {
      amount: 119,
      date: '2026-11-25',
      incoming_invoice_id: incomingId,
      payment_account_id: bankId,
    });
    assert.equal(out.status, 201, out.text);
  });

  it('the company profile holds the accounting settings, with the chart’s default accounts', async () => {
    const admin = await ctx.as('account:read account:write', { accountId: ctx.other.accountId });
    const got = (await admin.get('/account/profile')).body.data.accounting;
    assert.deepEqual(
      {
        ...got,
        accounts: { r19: got.accounts.revenue_19, r7: got.accounts.revenue_7, deb: got.accounts.receivables },
      },
      {
        datev_consultant_number: null,
        datev_client_number: null,
        fiscal_year_start_month: 1,
        account_length: 4,
        chart: 'SKR03',
        vat_method: 'accrual',
        accounts: { r19: '8400', r7: '8300', deb: '1400' },
      },
    );
    const skr04 = await admin.patch('/account/profile', {
      accounting: { chart: 'SKR04', vat_method: 'cash', accounts: { revenue_7: '4301' } },
    });
    assert.equal(skr04.status, 200, skr04.text);
    const a = skr04.body.data.accounting;
    assert.deepEqual(
      [a.chart, a.vat_method, a.accounts.revenue_19, a.accounts.revenue_7],
      ['SKR04', 'cash', '4400', '4301'],
    );
    // A longer account length pads the defaults; an account chosen by hand must be redone.
    const wrong = expectProblem(
      await admin.patch('/account/profile', { accounting: { account_length: 5 } }),
      422,
    );
    assert.deepEqual(
      wrong.errors!.map((e) => e.field),
      ['accounting.accounts.revenue_7'],
    );
    const longer = await admin.patch('/account/profile', {
      accounting: { account_length: 5, accounts: { revenue_7: null } },
    });
    assert.equal(longer.body.data.accounting.accounts.revenue_7, '43000');
    expectProblem(await admin.patch('/account/profile', { accounting: { chart: 'SKR99' } }), 422);
    expectProblem(
      await admin.patch('/account/profile', { accounting: { datev_consultant_number: 1000 } }),
      422,
    );
    expectProblem(await admin.patch('/account/profile', { accounting: { bogus: 1 } }), 422);
  });

  it('POST /exports/datev writes the month as EXTF files, field by field', async () => {
    const res = await exporter.post('/exports/datev', { date_from: '2026-11-01', date_to: '2026-11-30' });
    assert.equal(res.status, 201, res.text);
    const e = res.body.data;
    assert.equal(res.headers.location, `/api/v1/exports/${e.id}`);
    assert.deepEqual(
      [e.date_from, e.date_to, e.locked, e.bookings, e.debtors, e.creditors],
      ['2026-11-01', '2026-11-30', false, 8, 2, 1],
    );
    const file = await downloadExport(exporter, e.id);
    assert.equal(file.status, 200);
    assert.equal(file.headers['content-type'], 'application/zip');
    assert.equal(createHash('sha256').update(file.bytes).digest('hex'), e.sha256);
    const { files, bookings, parties } = unzipExport(file.bytes);

    // Windows-1252 and CRLF: ä, ß and € are one byte each, no line ends with a bare LF.
    const raw = Buffer.from(files['EXTF_Buchungsstapel.csv']!);
    assert.ok(raw.includes(Buffer.from([0x42, 0xe4, 0x63, 0x6b])), 'Bäck as E4');
    assert.ok(raw.includes(Buffer.from([0x47, 0x72, 0x6f, 0xdf])), 'Groß as DF');
    assert.ok(raw.includes(Buffer.from([0x80, 0x2d])), '€ as 80');
    assert.equal(raw.includes(Buffer.from('Ã')), false, 'no UTF-8');
    assert.equal(/[^\r]\n/.test(raw.toString('latin1')), false, 'CRLF only');

    const [header, columns, ...rows] = linesOf(bookings);
    assert.equal(header!.length, 31);
    assert.deepEqual(
      [0, 1, 2, 3, 4, 7, 10, 11, 12, 13, 14, 15, 18, 20, 21, 26].map((i) => header![i]),
      [
        '"EXTF"',
        '700',
        '21',
        '"Buchungsstapel"',
        '13',
        '"RE"',
        '1001',
        '42',
        '20260101',
        '4',
        '20261101',
        '20261130',
        '1',
        '0',
        '"EUR"',
        '"03"',
      ],
    );
    assert.match(header![5]!, /^20\d{15}$/);
    assert.equal(columns!.length, 125);
    assert.equal(columns![0], 'Umsatz (ohne Soll/Haben-Kz)');
    assert.equal(columns![13], 'Buchungstext');
    for (const r of rows) assert.equal(r.length, 125);

    // Amount, side, account, contra account, BU key, date (DDMM), Belegfeld 1, EU VAT id.
    const pick = (r: string[]) => [r[0], r[1], r[6], r[7], r[8], r[9], r[10], r[39]].join(' ');
    const q = (s: string) => `"${s}"`;
    assert.deepEqual(rows.map(pick), [
      `53,50 "S" 10000 8300  0311 ${q(doc.inv.number)} `,
      `119,00 "S" 10000 8400  0311 ${q(doc.inv.number)} `,
      '119,00 "H" 70000 4930 "9" 0511 "ER-7" ',
      '100,00 "H" 1600 4930  0711 "ER-9" ',
      `23,80 "H" 10000 8400  1011 ${q(doc.credit.number)} `,
      `200,00 "S" 10001 8336  1211 ${q(doc.rc.number)} "ATU12345678"`,
      `50,00 "S" 1200 10000  2011 ${q(doc.inv.number)} `,
      '119,00 "H" 1200 70000  2511 "ER-7" ',
    ]);
    assert.equal(rows[0]![13], `"${NAME}"`);
    assert.equal(rows[2]![13], '"Büro Schmidt"', 'the supplier record names the creditor');
    assert.equal(rows[0]![2], '"EUR"');

    const [pHeader, pColumns, ...pRows] = linesOf(parties);
    assert.deepEqual(
      [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15, 26].map((i) => pHeader![i]),
      ['"EXTF"', '700', '16', '"Debitoren/Kreditoren"', '5', '1001', '42', '20260101', '4', '', '', '"03"'],
    );
    assert.equal(pColumns!.length, 254);
    for (const r of pRows) assert.equal(r.length, 254);
    assert.deepEqual(
      pRows.map((r) => [r[0], r[1], r[6], r[8], r[9], r[19]].join(' ')),
      [
        `10000 "${NAME}" "2"   "DE"`,
        '10001 "Wiener Agentur" "2" "AT" "U12345678" "AT"',
        '70000 "Büro Schmidt" "2"   ',
      ],
    );

    // The same bytes again, listed with their checksum.
    assert.deepEqual((await downloadExport(exporter, e.id)).bytes, file.bytes);
    const list = await exporter.get('/exports');
    assert.equal(list.status, 200);
    assert.ok(
      list.body.data.some((x: { id: number; sha256: string }) => x.id === e.id && x.sha256 === e.sha256),
    );
    assert.equal((await exporter.get(`/exports/${e.id}`)).body.data.sha256, e.sha256);
  });

  it('documents: true adds the PDFs and DATEV’s document.xml; each row links its document', async () => {
    // The scan of ER-7, stored as the upload path stores it.
    const scan = Buffer.from('%PDF-1.4\n% ER-7 scan\n%%EOF\n');
    const { id: fileId } = await ctx.db
      .insertInto('files')
      .values({
        account_id: ctx.account.accountId,
        name: 'scan ER-7.pdf',
        content_type: 'application/pdf',
        size: scan.length,
        sha256: createHash('sha256').update(scan).digest('hex'),
        md5: createHash('md5').update(scan).digest('hex'),
        owner_type: 'incoming_invoice',
        owner_id: incomingId,
        uploaded_by_user_id: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await ctx.db.insertInto('file_blobs').values({ file_id: fileId, data: scan }).execute();
    await ctx.db
      .updateTable('incoming_invoices')
      .set({ file_id: fileId })
      .where('id', '=', incomingId)
      .execute();

    const body = { date_from: '2026-11-01', date_to: '2026-11-30', documents: true };
    const { record, files, rows } = await exportDatev(exporter, body);
    assert.equal(record.documents, 4, 'three outgoing PDFs and the scan');
    const xml = Buffer.from(files['document.xml']!).toString('utf8');
    assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"/);
    assert.match(
      xml,
      /<archive xmlns="http:\/\/xml\.datev\.de\/bedi\/tps\/document\/v05\.0"[^>]* version="5\.0"/,
    );
    const documents = [
      ...xml.matchAll(
        /<document guid="([0-9a-f-]{36})" type="([12])"[^>]*>\s*<extension xsi:type="File" name="([^"]+)"\/>/g,
      ),
    ].map((m) => ({ guid: m[1]!, type: m[2]!, name: m[3]! }));
    assert.equal(documents.length, 4);
    // Every file document.xml names is in the ZIP, which holds nothing else but the two EXTF files.
    for (const d of documents) assert.ok(files[d.name], `${d.name} in the ZIP`);
    assert.deepEqual(
      Object.keys(files).sort(),
      [BOOKINGS, PARTIES, 'document.xml', ...documents.map((d) => d.name)].sort(),
    );
    const pdf = await api.app.inject({
      method: 'GET',
      url: `/api/v1/outgoing-invoices/${doc.inv.id}/pdf`,
      headers: { authorization: `Bearer ${api.token}` },
    });
    const nameOf = (prefix: string, id: number) =>
      documents.find((d) => d.name.startsWith(`${prefix}_${id}_`))!;
    const invDoc = nameOf('AR', doc.inv.id);
    assert.deepEqual(Buffer.from(files[invDoc.name]!), pdf.rawPayload, 'the PDF the API serves');
    assert.equal(invDoc.type, '2');
    const scanDoc = nameOf('ER', incomingId);
    assert.equal(scanDoc.name, `ER_${incomingId}_ER-7.pdf`);
    assert.deepEqual(Buffer.from(files[scanDoc.name]!), scan);
    assert.equal(scanDoc.type, '1');

    // Column 20 (Beleglink) is BEDI "<guid>" of a document in document.xml on every row of an
    // invoice, a credit and an incoming booking with a file; payments link nothing.
    const byGuid = new Map(documents.map((d) => [d.guid, d.name]));
    const linked = rows.map((r) => {
      if (r[19] === '') return null;
      const m = /^"BEDI ""([0-9a-f-]{36})"""$/.exec(r[19]!);
      assert.ok(m && byGuid.has(m[1]!), `${r[19]} links a document of document.xml`);
      return byGuid.get(m[1]!)!;
    });
    assert.deepEqual(
      rows.map((r, i) => [r[10], linked[i]]),
      [
        [`"${doc.inv.number}"`, invDoc.name],
        [`"${doc.inv.number}"`, invDoc.name],
        ['"ER-7"', scanDoc.name],
        ['"ER-9"', null],
        [`"${doc.credit.number}"`, nameOf('AR', doc.credit.id).name],
        [`"${doc.rc.number}"`, nameOf('AR', doc.rc.id).name],
        [`"${doc.inv.number}"`, null],
        ['"ER-7"', null],
      ],
    );
    // The same books, the same documents under the same GUIDs.
    const xml2 = (await exportDatev(exporter, body)).files['document.xml']!;
    assert.deepEqual(
      [
        ...Buffer.from(xml2)
          .toString('utf8')
          .matchAll(/guid="([^"]+)"/g),
      ].map((m) => m[1]),
      documents.map((d) => d.guid),
    );
  });

  it('a locked month refuses every change dated in it (409 period_locked); others still change', async () => {
    expectProblem(
      await exporter.post('/exports/datev', { date_from: '2026-11-02', date_to: '2026-11-30', lock: true }),
      422,
    );
    const { record: locked, bookings } = await exportDatev(exporter, {
      date_from: '2026-11-01',
      date_to: '2026-11-30',
      lock: true,
    });
    assert.equal(locked.locked, true);
    assert.equal(linesOf(bookings)[0]![20], '1', 'Festschreibung flag');
    const periods = (await exporter.get('/accounting/periods')).body.data;
    assert.deepEqual(
      periods.map((p: { period: string; export_id: number }) => [p.period, p.export_id]),
      [['2026-11', locked.id]],
    );

    const refused = async (res: Awaited<ReturnType<Api['get']>>) => {
      const p = expectProblem(res, 409, 'period_locked');
      assert.match(p.detail, /2026-11/);
    };
    await refused(await api.post(`/outgoing-invoices/${doc.draft.id}/book`));
    assert.equal((await api.get(`/outgoing-invoices/${doc.draft.id}`)).body.data.status, 'open');
    await refused(await api.delete(`/outgoing-invoices/${doc.credit.id}/force`));
    assert.equal((await api.get(`/outgoing-invoices/${doc.credit.id}`)).body.data.deleted_at ?? null, null);
    const pay = (date: string) =>
      api.post('/payments/outgoing-invoice', {
        invoice_id: doc.inv.id,
        amount: 1,
        date,
        payment_account_id: bankId,
      });
    await refused(await pay('2026-11-29'));
    await refused(
      await api.post('/payments/outgoing-invoice-credit', {
        invoice_id: doc.inv.id,
        credit_id: doc.credit.id,
        date: '2026-11-30',
      }),
    );
    await refused(await api.patch(`/incoming-invoices/${incomingId}/bookings/${bookingId}`, { amount: 100 }));
    await refused(await api.delete(`/incoming-invoices/${incomingId}/bookings/${bookingId}`));
    await refused(await api.patch(`/incoming-invoices/${incomingId}`, { gross_total: 120 }));
    await refused(
      await api.post('/payments/incoming-invoice', {
        amount: 1,
        date: '2026-11-26',
        incoming_invoice_id: incomingId,
      }),
    );
    await refused(
      await api.post('/incoming-invoices', {
        invoice_number: 'ER-8',
        date: '2026-11-06',
        gross_total: 10,
        bookings: [{ chart_of_account_id: chart.office, amount: 10 }],
      }),
    );

    // An invoice made elsewhere is stored booked: its date is checked too.
    const form = await multipart(
      { name: 'ext.pdf', type: 'application/pdf', data: Buffer.from('%PDF-1.4\n%%EOF\n') },
      {
        data: JSON.stringify({
          client_id: (await api.get(`/outgoing-invoices/${doc.inv.id}`)).body.data.client_id,
          invoice_number: 'EXT-2026-11',
          date: '2026-11-16',
          line_items: [line(10)],
        }),
      },
    );
    await refused(await api.request('POST', '/outgoing-invoices/external', form.body, form.headers));
    assert.equal(
      (await api.get('/outgoing-invoices?per_page=100')).body.data.some(
        (i: { invoice_number: string | null }) => i.invoice_number === 'EXT-2026-11',
      ),
      false,
    );

    // Outside the month everything still works.
    assert.equal((await pay('2026-12-03')).status, 201);
    assert.equal((await api.delete(`/outgoing-invoices/${doc.december.id}/force`)).status, 204);

    // An export of the locked month is the same file every time.
    const again = await exporter.post('/exports/datev', { date_from: '2026-11-01', date_to: '2026-11-30' });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.data.sha256, locked.sha256);
    assert.equal(again.body.data.locked, true);
  });

  it('two locks of one month at once: one lock, the same file twice', async () => {
    const body = { date_from: '2026-10-01', date_to: '2026-10-31', lock: true };
    const [a, b] = await Promise.all([
      exporter.post('/exports/datev', body),
      exporter.post('/exports/datev', body),
    ]);
    assert.deepEqual([a.status, b.status], [201, 201], `${a.text} ${b.text}`);
    assert.equal(a.body.data.sha256, b.body.data.sha256);
    const periods = (await exporter.get('/accounting/periods')).body.data.map(
      (p: { period: string }) => p.period,
    );
    assert.deepEqual(periods, ['2026-10', '2026-11']);
  });

  it('POST /accounting/periods/{month}/lock locks without an export; two at once make one lock', async () => {
    const [a, b] = await Promise.all([
      exporter.post('/accounting/periods/2026-09/lock'),
      exporter.post('/accounting/periods/2026-09/lock'),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 201], `${a.text} ${b.text}`);
    assert.deepEqual(a.body.data, b.body.data, 'the second answers the first lock as it is');
    assert.deepEqual([a.body.data.period, a.body.data.export_id], ['2026-09', null]);
    assert.equal(typeof a.body.data.locked_by, 'number');
    // A month an export locked answers that lock, unchanged.
    const byExport = await exporter.post('/accounting/periods/2026-11/lock');
    assert.equal(byExport.status, 200, byExport.text);
    assert.notEqual(byExport.body.data.export_id, null);
    const periods = (await exporter.get('/accounting/periods')).body.data;
    assert.deepEqual(
      periods.map((p: { period: string }) => p.period),
      ['2026-09', '2026-10', '2026-11'],
    );
    const audit = await ctx.db
      .selectFrom('audit_log')
      .select(['target_id', 'actor_user_id'])
      .where('account_id', '=', ctx.account.accountId)
      .where('action', '=', 'accounting_period.lock')
      .execute();
    assert.deepEqual(audit, [{ target_id: '2026-09', actor_user_id: a.body.data.locked_by }]);
    // Something dated in it is refused now, and nothing is stored.
    const reader = await ctx.as('incoming-invoice:read');
    const before = (await reader.get('/incoming-invoices?per_page=100')).body.data.length;
    expectProblem(
      await api.post('/incoming-invoices', {
        invoice_number: 'ER-SEP',
        date: '2026-09-10',
        gross_total: 10,
        bookings: [{ chart_of_account_id: chart.office, amount: 10 }],
      }),
      409,
      'period_locked',
    );
    assert.equal((await reader.get('/incoming-invoices?per_page=100')).body.data.length, before);
    for (const bad of ['2026-13', '2026-9', '2026-Q3', '2999-01'])
      expectProblem(await exporter.post(`/accounting/periods/${bad}/lock`), 422);
    // Another account's months are its own.
    const foreign = await ctx.as('accounting:export', { accountId: ctx.other.accountId });
    assert.deepEqual((await foreign.get('/accounting/periods')).body.data, []);
  });

  it('the export reconciles with the API: revenue and tax per rate, receivables and payments', async () => {
    const e = (await exporter.get('/exports')).body.data[0];
    const { rows } = await readExport(exporter, e.id);
    // Revenue rows (debtor against a revenue account) per account, against the invoices' taxes.
    const revenue: Record<string, number> = {};
    for (const r of rows.filter((r) => /^1000\d$/.test(r[6]!)))
      revenue[r[7]!] = (revenue[r[7]!] ?? 0) + cents(r);
    const fromApi: Record<string, number> = {};
    for (const d of [doc.inv, doc.credit, doc.rc]) {
      const inv = (await api.get(`/outgoing-invoices/${d.id}`)).body.data;
      for (const t of inv.taxes as { rate: number; net: number; tax: number }[]) {
        const account = t.rate === 19 ? '8400' : t.rate === 7 ? '8300' : '8336';
        fromApi[account] = (fromApi[account] ?? 0) + Math.round((t.net + t.tax) * 100);
      }
    }
    assert.deepEqual(revenue, fromApi);
    // Money received: bank against debtors equals the payments of the month.
    const received = rows
      .filter((r) => r[6] === '1200' && /^1000\d$/.test(r[7]!))
      .reduce((s, r) => s + cents(r), 0);
    const payments = (await api.get('/payments?per_page=100')).body.data.filter(
      (p: { date: string; type: string }) => p.date.startsWith('2026-11') && p.type === 'outgoing_invoice',
    );
    assert.equal(
      received,
      payments.reduce((s: number, p: { amount: number }) => s + Math.round(p.amount * 100), 0),
    );
  });

  it('GET /reports/vat-return: the Kennzahlen of the month by invoice date (accrual)', async () => {
    const res = await exporter.get('/reports/vat-return?period=2026-11');
    assert.equal(res.status, 200, res.text);
    const v = res.body.data;
    assert.deepEqual([v.date_from, v.date_to, v.vat_method], ['2026-11-01', '2026-11-30', 'accrual']);
    const figures = vatFigures(v);
    // 81: 100 − 20 (credit) at 19 %; 86: 50 at 7 %; 21: 200 reverse charge to AT; 46/67: 100 received
    // from AT at 19 %; 66: the 19 % in 119; 83: 15.20 + 3.50 + 19.00 − 19.00 − 19.00.
    assert.deepEqual(figures, {
      '81': [80, 15.2],
      '86': [50, 3.5],
      '21': [200, null],
      '46': [100, 19],
      '66': [null, 19],
      '67': [null, 19],
      '83': [null, -0.3],
    });
    const docs81 = v.figures[0].documents.map((d: { id: number }) => d.id);
    assert.deepEqual(docs81, [doc.inv.id, doc.credit.id]);
    const quarter = (await exporter.get('/reports/vat-return?period=2026-Q4')).body.data;
    assert.deepEqual([quarter.date_from, quarter.date_to], ['2026-10-01', '2026-12-31']);
  });

  it('GET /reports/vat-return under the cash method: the money received, split over the rates', async () => {
    assert.equal((await api.patch('/account/profile', { accounting: { vat_method: 'cash' } })).status, 200);
    const v = (await exporter.get('/reports/vat-return?period=2026-11')).body.data;
    assert.equal(v.vat_method, 'cash');
    const figures = vatFigures(v);
    // 50.00 paid on 119.00 (19 %) + 53.50 (7 %): 5000 × 11900/17250 = 3449.28 → 3449,
    // 5000 × 5350/17250 = 1550.72 → 1551 (largest remainder); tax 3449 × 19/119 = 550.67 → 5.51,
    // 1551 × 7/107 = 101.47 → 1.01. Input tax is by invoice date either way.
    assert.deepEqual(figures, {
      '81': [28.98, 5.51],
      '86': [14.5, 1.01],
      '46': [100, 19],
      '66': [null, 19],
      '67': [null, 19],
      '83': [null, 5.51 + 1.01 - 19],
    });
    assert.equal(
      (await api.patch('/account/profile', { accounting: { vat_method: 'accrual' } })).status,
      200,
    );
  });

  it('GET /reports/receivables-ageing: open amounts per client by days overdue; totals equal the open items', async () => {
    const inv = (await api.get(`/outgoing-invoices/${doc.inv.id}`)).body.data;
    const rc = (await api.get(`/outgoing-invoices/${doc.rc.id}`)).body.data;
    const bucket = (due: string, asOf: string) => {
      const days = (Date.parse(asOf) - Date.parse(due)) / 86_400_000;
      return days <= 0
        ? 'not_due'
        : days <= 30
          ? 'days_1_30'
          : days <= 60
            ? 'days_31_60'
            : days <= 90
              ? 'days_61_90'
              : 'over_90';
    };
    for (const asOf of ['2026-11-25', '2027-03-31']) {
      const res = await exporter.get(`/reports/receivables-ageing?date=${asOf}`);
      assert.equal(res.status, 200, res.text);
      const a = res.body.data;
      // 172.50 less 50.00 paid on 20 Nov (and 1.00 on 3 Dec); the reverse-charge invoice is unpaid.
      const invOpen = asOf === '2026-11-25' ? 122.5 : 121.5;
      const expected: Record<string, number> = {
        not_due: 0,
        days_1_30: 0,
        days_31_60: 0,
        days_61_90: 0,
        over_90: 0,
      };
      expected[bucket(inv.due_date, asOf)]! += invOpen;
      expected[bucket(rc.due_date, asOf)]! += 200;
      assert.deepEqual(a.totals, { ...expected, total: invOpen + 200 });
      assert.deepEqual(
        a.clients.map((c: { name: string; total: number; invoices: { id: number }[] }) => [
          c.name,
          c.total,
          c.invoices.map((i) => i.id),
        ]),
        [
          [NAME, invOpen, [doc.inv.id]],
          ['Wiener Agentur', 200, [doc.rc.id]],
        ],
      );
    }
  });

  it('GET /reports/payables-ageing: open incoming invoices per supplier by days overdue', async () => {
    const read = await ctx.as('incoming-invoice:read');
    const list = (await read.get('/incoming-invoices?per_page=100')).body.data as {
      id: number;
      invoice_number: string;
      date: string;
      due_date: string | null;
    }[];
    const er7 = list.find((i) => i.invoice_number === 'ER-7')!;
    const er9 = list.find((i) => i.invoice_number === 'ER-9')!;
    const days = (i: { date: string; due_date: string | null }, asOf: string) =>
      (Date.parse(asOf) - Date.parse(i.due_date ?? i.date)) / 86_400_000;
    // On 20 Nov ER-7 (119.00, paid on 25 Nov) and ER-9 (100.00) are open; on 30 Nov only ER-9.
    const before = (await exporter.get('/reports/payables-ageing?date=2026-11-20')).body.data;
    assert.equal(before.totals.total, 219);
    assert.deepEqual(
      before.suppliers.map((s: { name: string; total: number; supplier_id: number | null }) => [
        s.name,
        s.total,
      ]),
      [
        ['Büro Schmidt', 119],
        ['Wien Hosting GmbH', 100],
      ],
    );
    assert.ok(days(er7, '2026-11-20') <= 30 && days(er9, '2026-11-20') <= 30);
    const after = (await exporter.get('/reports/payables-ageing?date=2026-11-30')).body.data;
    assert.deepEqual(after.totals, {
      not_due: days(er9, '2026-11-30') <= 0 ? 100 : 0,
      days_1_30: days(er9, '2026-11-30') > 0 ? 100 : 0,
      days_31_60: 0,
      days_61_90: 0,
      over_90: 0,
      total: 100,
    });
    assert.deepEqual(
      after.suppliers.map((s: { invoices: { id: number }[] }) => s.invoices.map((i) => i.id)),
      [[er9.id]],
    );
  });

  it('GET /reports/oss: consumer sales to other EU states at their rates, by country and rate', async () => {
    const at = await makeClient(api, { name: 'Anna Huber', country_code: 'AT' });
    const fr = await makeClient(api, { name: 'Jean Dupont', country_code: 'FR' });
    const book = async (client: number, date: string, lines: ReturnType<typeof line>[]) => {
      const inv = await makeInvoice(api, { client_id: client, date, line_items: lines });
      return (await bookNow(api, inv.id)).id as number;
    };
    const a = await book(at, '2026-07-06', [line(100, { tax_rate: 20 })]);
    const f = await book(fr, '2026-08-03', [line(200, { tax_rate: 5.5 }), line(50, { tax_rate: 20 })]);
    // At the German rate the supply stays taxed at home (under the EU threshold): not OSS.
    const home = await book(at, '2026-08-04', [line(30)]);
    const res = await exporter.get('/reports/oss?period=2026-Q3');
    assert.equal(res.status, 200, res.text);
    const o = res.body.data;
    assert.deepEqual([o.date_from, o.date_to], ['2026-07-01', '2026-09-30']);
    type Rate = { rate: number; base: number; tax: number; documents: { id: number }[] };
    assert.deepEqual(
      o.countries.map((c: { country: string; base: number; tax: number; rates: Rate[] }) => [
        c.country,
        c.base,
        c.tax,
        c.rates.map((r) => [r.rate, r.base, r.tax, r.documents.map((d) => d.id)]),
      ]),
      [
        ['AT', 100, 20, [[20, 100, 20, [a]]]],
        [
          'FR',
          250,
          21,
          [
            [5.5, 200, 11, [f]],
            [20, 50, 10, [f]],
          ],
        ],
      ],
    );
    assert.deepEqual(o.totals, { base: 350, tax: 41 });
    // The VAT return has the home sale and none of the OSS ones.
    const v = (await exporter.get('/reports/vat-return?period=2026-Q3')).body.data;
    assert.deepEqual(
      v.figures.map(
        (x: { kennzahl: string; base: number | null; tax: number | null; documents: { id: number }[] }) => [
          x.kennzahl,
          x.base,
          x.tax,
          x.documents.map((d) => d.id),
        ],
      ),
      [
        ['81', 30, 5.7, [home]],
        ['83', null, 5.7, []],
      ],
    );
  });

  it('an invoice of dunning charges: fee and interest on their accounts, no VAT figure', async () => {
    const client = (await api.get(`/outgoing-invoices/${doc.inv.id}`)).body.data.client_id;
    const charges = await makeInvoice(api, {
      client_id: client,
      date: '2026-12-10',
      tax_exemption_category: 'O',
      tax_exemption_reason: 'Schadenersatz, nicht steuerbar',
      line_items: [
        line(5, { tax_rate: 0, title: 'Mahngebühr' }),
        line(2.5, { tax_rate: 0, title: 'Verzugszinsen' }),
      ],
    });
    const booked = await bookNow(api, charges.id);
    // The letter that claimed them (as POST /dunnings/{id}/invoice-charges leaves it).
    await ctx.db
      .insertInto('dunning_letters')
      .values({
        account_id: ctx.account.accountId,
        number: 'MA-2026-1',
        invoice_id: doc.inv.id,
        client_id: client,
        level: 2,
        date: '2026-12-09',
        currency: 'EUR',
        language: 'de',
        open_amount: 12150,
        fee: 500,
        flat_fee: 0,
        interest: 250,
        total_due: 12900,
        interest_breakdown: '[]',
        subject: 'Mahnung',
        body: 'Bitte zahlen',
        delivery: 'pdf',
        charges_invoice_id: charges.id,
      })
      .execute();
    const rows = (
      await exportDatev(exporter, { date_from: '2026-12-01', date_to: '2026-12-31' })
    ).rows.filter((r) => r[10] === `"${booked.invoice_number}"`);
    assert.deepEqual(
      rows.map((r) => [r[0], r[1], r[6], r[7], r[8], r[9]].join(' ')),
      ['5,00 "S" 10000 2700  1012', '2,50 "S" 10000 2650  1012'],
    );
    const vat = (await exporter.get('/reports/vat-return?period=2026-12')).body.data;
    assert.deepEqual(
      vat.figures.map((f: { kennzahl: string }) => f.kennzahl),
      ['83'],
      'nothing of the charges',
    );
  });

  it('401, 403, 404 and 422 on every operation', async () => {
    const none = await ctx.as('account:read');
    const ops: [string, string, unknown?][] = [
      ['POST', '/exports/datev', { date_from: '2026-10-01', date_to: '2026-10-31' }],
      ['GET', '/exports'],
      ['GET', '/exports/1'],
      ['GET', '/exports/1/download'],
      ['GET', '/accounting/periods'],
      ['POST', '/accounting/periods/2026-01/lock'],
      ['GET', '/reports/oss?period=2026-Q4'],
      ['GET', '/reports/vat-return?period=2026-11'],
      ['GET', '/reports/receivables-ageing'],
      ['GET', '/reports/payables-ageing'],
    ];
    for (const [method, path, body] of ops) {
      expectProblem(await ctx.anon.request(method as 'GET', path, body), 401);
      const p = expectProblem(await none.request(method as 'GET', path, body), 403, 'insufficient_scope');
      assert.deepEqual(p.required_scopes, ['accounting:export']);
    }
    expectProblem(await exporter.get('/exports/99999999'), 404, 'not_found');
    expectProblem(await exporter.get('/exports/99999999/download'), 404, 'not_found');
    const foreign = await ctx.as('accounting:export', { accountId: ctx.other.accountId });
    const mine = (await exporter.get('/exports')).body.data[0].id;
    expectProblem(await foreign.get(`/exports/${mine}`), 404);
    expectProblem(await foreign.get(`/exports/${mine}/download`), 404);
    const fields = async (body: unknown, as = exporter) =>
      expectProblem(await as.post('/exports/datev', body), 422).errors!.map((e) => e.field);
    assert.deepEqual(await fields({ date_from: '2026-11-30', date_to: '2026-11-01' }), ['date_to']);
    assert.deepEqual(await fields({ date_from: '2026-12-01', date_to: '2027-01-31' }), ['date_to']);
    assert.ok((await fields({ date_from: '2026-11-01', date_to: '2026-11-30', extra: 1 })).length > 0);
    assert.ok((await fields({ date_from: '2026-13-01', date_to: '2026-11-30' })).length > 0);
    assert.ok((await fields({ date_from: '2026-11-01' })).length > 0);
    expectProblem(await exporter.get('/exports?per_page=1000'), 422);
    expectProblem(await exporter.get('/exports/abc'), 422);
    for (const q of ['', '?period=2026-13', '?period=2026-Q5', '?period=2026-11&x=1'])
      expectProblem(await exporter.get(`/reports/vat-return${q}`), 422);
    expectProblem(await exporter.get('/reports/receivables-ageing?date=2026-02-30x'), 422);
    expectProblem(await exporter.get('/reports/receivables-ageing?client=1'), 422);
    expectProblem(await exporter.get('/reports/payables-ageing?date=tomorrow'), 422);
    for (const q of ['', '?period=2026-11', '?period=2026-Q0', '?period=2026-Q4&x=1'])
      expectProblem(await exporter.get(`/reports/oss${q}`), 422);
    // The other account has no DATEV numbers yet.
    assert.deepEqual(await fields({ date_from: '2026-11-01', date_to: '2026-11-30' }, foreign), [
      'accounting.datev_consultant_number',
      'accounting.datev_client_number',
    ]);
  });

  it('an undated invoice booked while this month is locked gets the first open day', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const month = today.slice(0, 7);
    const last = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0))
      .toISOString()
      .slice(0, 10);
    const lock = await exporter.post('/exports/datev', {
      date_from: `${month}-01`,
      date_to: last,
      lock: true,
    });
    assert.equal(lock.status, 201, lock.text);
    const client = (await api.get(`/outgoing-invoices/${doc.inv.id}`)).body.data.client_id;
    const undated = await makeInvoice(api, { client_id: client, line_items: [line(10)] });
    const booked = await bookNow(api, undated.id);
    const next = new Date(Date.parse(`${last}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    assert.equal(booked.date, next);
    const dated = await makeInvoice(api, { client_id: client, date: today, line_items: [line(10)] });
    expectProblem(await api.post(`/outgoing-invoices/${dated.id}/book`), 409, 'period_locked');
  });

  it('a bank match in a locked month is not undone: 409 period_locked, the payment stays', async () => {
    const banker = await ctx.as([...ALL_INVOICE_SCOPES, 'banking:read', 'banking:write', 'payments:write']);
    const IBAN = 'DE02120300000000202051';
    const account = await banker.post('/payment-accounts', { name: 'Giro', iban: IBAN });
    assert.equal(account.status, 201, account.text);
    const client = (await api.get(`/outgoing-invoices/${doc.inv.id}`)).body.data.client_id;
    const inv = await bookNow(
      api,
      (await makeInvoice(api, { client_id: client, date: '2026-06-03', line_items: [line(100)] })).id,
    );
    const xml = camt('053', {
      iban: IBAN,
      opening: 0,
      from: '2026-06-10',
      to: '2026-06-10',
      id: 'S-JUNE',
      entries: [{ booking: '2026-06-10', amount: 11900, text: inv.invoice_number, ref: 'J-1' }],
    });
    const form = await multipart({ name: 'june.xml', type: 'application/octet-stream', data: xml });
    const imported = await banker.request('POST', '/bank-statements', form.body, form.headers);
    assert.equal(imported.status, 201, imported.text);
    assert.equal(imported.body.data.matched, 1, imported.text);
    const [tx] = (await banker.get(`/bank-transactions?statement_id=${imported.body.data.id}`)).body.data;
    assert.equal((await exporter.post('/accounting/periods/2026-06/lock')).status, 201);
    const p = expectProblem(
      await banker.post(`/bank-transactions/${tx.id}/unmatch`, {}),
      409,
      'period_locked',
    );
    assert.match(p.detail, /2026-06/);
    const payments = (await api.get(`/payments?invoice_id=${inv.id}`)).body.data;
    assert.deepEqual(
      payments.map((x: { amount: number; date: string }) => [x.amount, x.date]),
      [[119, '2026-06-10']],
    );
    assert.equal((await banker.get(`/bank-transactions/${tx.id}`)).body.data.status, 'matched');
  });

  it('the invoice of a dunning letter’s charges is not booked into a locked month', async () => {
    const dunner = await ctx.as([...ALL_INVOICE_SCOPES, 'dunning:write']);
    const client = (await api.get(`/outgoing-invoices/${doc.inv.id}`)).body.data.client_id;
    const { id: letter } = await ctx.db
      .insertInto('dunning_letters')
      .values({
        account_id: ctx.account.accountId,
        number: 'MA-2026-2',
        invoice_id: doc.inv.id,
        client_id: client,
        level: 3,
        date: '2026-06-20',
        currency: 'EUR',
        language: 'de',
        open_amount: 12150,
        fee: 500,
        flat_fee: 0,
        interest: 0,
        total_due: 12650,
        interest_breakdown: '[]',
        subject: 'Mahnung',
        body: 'Bitte zahlen',
        delivery: 'pdf',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const charges = await dunner.post(`/dunnings/${letter}/invoice-charges`, {});
    assert.equal(charges.status, 201, charges.text);
    const id = charges.body.data.id;
    assert.equal((await api.patch(`/outgoing-invoices/${id}`, { date: '2026-06-21' })).status, 200);
    const p = expectProblem(await api.post(`/outgoing-invoices/${id}/book`), 409, 'period_locked');
    assert.match(p.detail, /2026-06/);
    assert.equal((await api.get(`/outgoing-invoices/${id}`)).body.data.status, 'open');
  });
});
