import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { type CamtKind, camt, type GenEntry, type GenStatement, mt940 } from './bank.fixtures.js';
import { type Api, countRows, describeEachDb, expectProblem, multipart } from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

const IBAN = 'DE02120300000000202051';
const PAYER = 'DE89370400440532013000';
const OTHER_PAYER = 'DE75512108001245126199';

describeEachDb('banking', (ctx) => {
  let api: Api;
  let reader: Api;
  let writer: Api;
  let foreign: Api;
  let accountId: number;
  let clientId: number;
  let seq = 0;

  before(async () => {
    api = await ctx.as([...ALL_INVOICE_SCOPES, 'banking:read', 'banking:write']);
    reader = await ctx.as('banking:read');
    writer = await ctx.as('banking:write payments:write');
    foreign = await ctx.as([...ALL_INVOICE_SCOPES, 'banking:read', 'banking:write'], {
      userId: ctx.other.users.admin,
    });
    const res = await api.post('/payment-accounts', {
      name: 'Business account',
      iban: 'DE02 1203 0000 0000 2020 51',
      bic: 'byladem1001',
      bank_name: 'DKB',
    });
    assert.equal(res.status, 201, res.text);
    accountId = res.body.data.id;
    clientId = await makeClient(api);
  });

  /** A booked invoice of `gross` (net at 19 %): its id and number. */
  const invoice = async (net: number, client = clientId) => {
    const inv = await makeInvoice(api, { client_id: client, line_items: [line(net)] });
    const booked = await bookNow(api, inv.id);
    return {
      id: booked.id as number,
      number: booked.invoice_number as string,
      gross: booked.gross_total as number,
    };
  };
  const upload = async (
    as: Api,
    text: string | Buffer,
    fields: Record<string, string> = {},
    name = 'statement.xml',
  ) => {
    const { body, headers } = await multipart({ name, type: 'application/octet-stream', data: text }, fields);
    return as.request('POST', '/bank-statements', body, headers);
  };
  const day = (n: number) => `2026-04-${String(n).padStart(2, '0')}`;
  const statement = (entries: GenEntry[], extra: Partial<GenStatement> = {}): GenStatement => ({
    iban: IBAN,
    opening: 100000,
    from: entries[0]?.booking ?? day(1),
    to: entries.at(-1)?.booking ?? day(1),
    id: `S${++seq}`,
    entries,
    ...extra,
  });
  const transactionsOf = async (statementId: number) =>
    (await reader.get(`/bank-transactions?statement_id=${statementId}`)).body.data;

  it('payment accounts: created and changed with banking:write, IBAN and BIC checked, listed with iban/bic/currency', async () => {
    const listed = (await ctx.as('payments:read').then((a) => a.get('/payment-accounts'))).body.data;
    const mine = listed.find((a: any) => a.id === accountId);
    assert.deepEqual(
      [mine.name, mine.type, mine.iban, mine.bic, mine.bank_name, mine.currency],
      ['Business account', 'bank', IBAN, 'BYLADEM1001', 'DKB', 'EUR'],
    );
    const bad = expectProblem(
      await api.post('/payment-accounts', { name: 'X', iban: 'DE00120300000000202051', bic: 'NOPEDEFF1' }),
      422,
    );
    assert.deepEqual(bad.errors!.map((e) => e.field).sort(), ['bic', 'iban']);
    expectProblem(await api.post('/payment-accounts', { name: 'Twice', iban: IBAN }), 409, 'already_exists');
    expectProblem(await api.post('/payment-accounts', { name: 'X', colour: 'red' }), 422);
    const cash = await api.post('/payment-accounts', { name: 'Cash', type: 'cash', currency: 'CHF' });
    assert.equal(cash.status, 201);
    assert.equal(cash.headers.location, `/api/v1/payment-accounts/${cash.body.data.id}`);
    const changed = await api.patch(`/payment-accounts/${cash.body.data.id}`, {
      name: 'Petty cash',
      currency: 'EUR',
    });
    assert.deepEqual(
      [changed.status, changed.body.data.name, changed.body.data.currency],
      [200, 'Petty cash', 'EUR'],
    );
    expectProblem(
      await api.patch(`/payment-accounts/${cash.body.data.id}`, { iban: IBAN }),
      409,
      'already_exists',
    );
    expectProblem(await api.patch(`/payment-accounts/${cash.body.data.id}`, {}), 422);
    expectProblem(await foreign.patch(`/payment-accounts/${cash.body.data.id}`, { name: 'Mine' }), 404);
    expectProblem(await ctx.anon.post('/payment-accounts', { name: 'X' }), 401);
    const forbidden = expectProblem(
      await (await ctx.as('payments:write')).post('/payment-accounts', { name: 'X' }),
      403,
    );
    assert.deepEqual(forbidden.required_scopes, ['banking:write']);
  });

  for (const [kind, version, prefix] of [
    ['053', '02', undefined],
    ['053', '04', 'camt'],
    ['053', '08', undefined],
    ['052', '06', undefined],
    ['054', '08', 'ns2'],
  ] as [CamtKind, string, string | undefined][]) {
    it(`imports CAMT.${kind}.001.${version}${prefix ? ' (prefixed)' : ''}; the same file again stores nothing twice`, async () => {
      const entries: GenEntry[] = [
        {
          booking: day(2),
          amount: 12345,
          name: 'Kunde AG',
          iban: PAYER,
          bic: 'COBADEFFXXX',
          text: `Order ${kind}-${version}`,
          ref: `R-${kind}-${version}-1`,
          e2e: 'E2E-A',
        },
        {
          booking: day(2),
          amount: -4200,
          name: 'Vermieter',
          iban: OTHER_PAYER,
          text: 'Miete April',
          ref: `R-${kind}-${version}-2`,
          mandate: 'MANDATE-7',
        },
        { booking: day(3), amount: 999, text: 'pending', status: 'PDNG', ref: `R-${kind}-${version}-3` },
      ];
      const file = camt(kind, statement(entries), { version, prefix, splitUstrd: version === '04' });
      const first = await upload(writer, file);
      assert.equal(first.status, 201, first.text);
      const s = first.body.data;
      assert.equal(first.headers.location, `/api/v1/bank-statements/${s.id}`);
      assert.deepEqual(
        [s.format, s.payment_account_id, s.entries_new, s.entries_known, s.entries_skipped, s.warnings],
        [`camt.${kind}`, accountId, 2, 0, 1, []],
      );
      if (kind !== '054') assert.deepEqual([s.opening_balance, s.closing_balance], [1000, 1081.45]);
      const txs = await transactionsOf(s.id);
      assert.deepEqual(
        txs.map((t: any) => [t.booking_date, t.amount, t.counterparty_name, t.counterparty_iban, t.status]),
        [
          [day(2), 123.45, 'Kunde AG', PAYER, 'unmatched'],
          [day(2), -42, 'Vermieter', OTHER_PAYER, 'unmatched'],
        ],
      );
      assert.equal(txs[0].remittance, `Order ${kind}-${version}`);
      assert.equal(txs[0].end_to_end_id, 'E2E-A');
      assert.equal(txs[1].mandate_id, 'MANDATE-7');
      const before = await countRows(ctx.db, 'bank_transactions');
      const again = (await upload(writer, file)).body.data;
      assert.deepEqual([again.entries_new, again.entries_known], [0, 2]);
      assert.equal(await countRows(ctx.db, 'bank_transactions'), before);
    });
  }

  it('an intraday CAMT.052, then the CAMT.053 of the day: each line stored once (bank references)', async () => {
    const morning: GenEntry[] = [
      { booking: day(6), amount: 5000, name: 'A', text: 'first', ref: 'DAY6-1' },
      { booking: day(6), amount: 7000, name: 'B', text: 'second', ref: 'DAY6-2' },
    ];
    const evening = [...morning, { booking: day(6), amount: -300, name: 'C', text: 'fee', ref: 'DAY6-3' }];
    const a = (await upload(writer, camt('052', statement(morning), { version: '08' }))).body.data;
    const b = (await upload(writer, camt('053', statement(evening), { version: '02' }))).body.data;
    assert.deepEqual([a.entries_new, b.entries_new, b.entries_known], [2, 1, 2]);
  });

  it('overlapping files without bank references (MT940, CAMT.053): identity by content and occurrence', async () => {
    // Two equal lines on one day stay two; the later file holds them and one more.
    const same: GenEntry = {
      booking: day(8),
      amount: 1500,
      name: 'Kiosk',
      iban: OTHER_PAYER,
      text: 'Kaffee',
    };
    const first = statement([same, same]);
    const second = statement([
      same,
      same,
      same,
      { booking: day(8), amount: -100, name: 'Bank', text: 'Gebuehr' },
    ]);
    const a = (await upload(writer, mt940([first], { dialect: 'german' }), {}, 'a.sta')).body.data;
    assert.deepEqual([a.format, a.entries_new, a.entries_known], ['mt940', 2, 0]);
    const b = (await upload(writer, camt('053', second), {}, 'b.xml')).body.data;
    assert.deepEqual([b.entries_new, b.entries_known], [2, 2]);
    const again = (await upload(writer, mt940([second], { dialect: 'german' }), {}, 'c.sta')).body.data;
    assert.deepEqual([again.entries_new, again.entries_known], [0, 4]);
  });

  it('MT940 of German, Dutch and plain banks; a statement that does not add up is stored with a warning', async () => {
    for (const dialect of ['german', 'dutch', 'plain'] as const) {
      const s = statement([
        {
          booking: day(10),
          value: day(9),
          amount: 25000,
          name: 'Muster GmbH',
          iban: PAYER,
          bic: 'COBADEFFXXX',
          text: `SEPA ${dialect} payment with a purpose longer than one line of the field`,
          e2e: `E-${dialect}`,
          ref: `MT-${dialect}`,
        },
      ]);
      const res = await upload(
        writer,
        mt940([s], {
          dialect,
          swiftBlocks: dialect === 'dutch',
          lineEnd: dialect === 'plain' ? '\n' : '\r\n',
        }),
        {},
        'x.sta',
      );
      assert.equal(res.status, 201, res.text);
      const [t] = await transactionsOf(res.body.data.id);
      assert.deepEqual([t.booking_date, t.value_date, t.amount], [day(10), day(9), 250]);
      assert.equal(t.remittance, `SEPA ${dialect} payment with a purpose longer than one line of the field`);
      if (dialect !== 'plain')
        assert.deepEqual(
          [t.counterparty_name, t.counterparty_iban, t.end_to_end_id],
          ['Muster GmbH', PAYER, `E-${dialect}`],
        );
    }
    const broken = statement([{ booking: day(11), amount: 100, text: 'x', ref: 'BROKEN-1' }], {
      closing: 999999,
    });
    const res = (await upload(writer, mt940([broken]), {}, 'broken.sta')).body.data;
    assert.deepEqual([res.entries_new, res.warnings], [1, ['balances_do_not_add_up']]);
  });

  it('reads a ZIP of several statements as one import; refuses ZIP bombs and nested ZIPs', async () => {
    const monday = statement([{ booking: day(24), amount: 1000, name: 'Z', text: 'zip one', ref: 'ZIP-1' }]);
    const tuesday = statement([{ booking: day(25), amount: -200, name: 'Z', text: 'zip two', ref: 'ZIP-2' }]);
    const zip = Buffer.from(
      zipSync({
        'export/2026-04-24.xml': strToU8(camt('053', monday)),
        'export/2026-04-25.sta': strToU8(mt940([tuesday])),
        '__MACOSX/export/._2026-04-24.xml': strToU8('junk'),
      }),
    );
    const res = await upload(writer, zip, {}, 'statements.zip');
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(
      [res.body.data.format, res.body.data.entries_new, res.body.data.period_start, res.body.data.period_end],
      ['camt.053', 2, day(24), day(25)],
    );
    assert.equal((await upload(writer, zip, {}, 'statements.zip')).body.data.entries_known, 2);
    const lines = await countRows(ctx.db, 'bank_transactions');
    const bomb = Buffer.from(zipSync({ 'big.xml': new Uint8Array(51 * 1024 * 1024) }, { level: 9 }));
    assert.ok(bomb.length < 1024 * 1024);
    const refused = expectProblem(await upload(writer, bomb, {}, 'bomb.zip'), 422);
    assert.match(refused.detail, /unpacks to more than 50 MB/);
    expectProblem(
      await upload(
        writer,
        Buffer.from(zipSync({ 'inner.zip': zipSync({ 'a.xml': strToU8('x') }) })),
        {},
        'n.zip',
      ),
      422,
    );
    const bad = Buffer.from(
      zipSync({ 'a.xml': strToU8(camt('053', monday)), 'b.txt': strToU8('not a statement') }),
    );
    assert.match(expectProblem(await upload(writer, bad, {}, 'bad.zip'), 422).detail, /b\.txt/);
    assert.equal(await countRows(ctx.db, 'bank_transactions'), lines);
  });

  it('CSV through a stored profile: German export (semicolons, decimal comma, ISO 8859-1, quotes)', async () => {
    const profile = await writer.post('/bank-csv-profiles', {
      name: 'Sparkasse CSV-CAMT',
      delimiter: ';',
      decimal_separator: ',',
      date_format: 'DD.MM.YY',
      encoding: 'iso-8859-1',
      header_rows: 1,
      columns: {
        booking_date: 2,
        value_date: 3,
        amount: 8,
        currency: 9,
        counterparty_name: 5,
        counterparty_iban: 6,
        remittance: [4],
        end_to_end_reference: 7,
      },
    });
    assert.equal(profile.status, 201, profile.text);
    assert.equal(profile.headers.location, `/api/v1/bank-csv-profiles/${profile.body.data.id}`);
    const id = String(profile.body.data.id);
    assert.deepEqual((await reader.get(`/bank-csv-profiles/${id}`)).body.data, profile.body.data);
    assert.ok(
      (await reader.get('/bank-csv-profiles')).body.data.some((p: any) => p.id === profile.body.data.id),
    );
    const inv = await invoice(20);
    const csv = [
      'Auftragskonto;Buchungstag;Valutadatum;Verwendungszweck;Beguenstigter/Zahlungspflichtiger;IBAN;Kundenreferenz (End-to-End);Betrag;Waehrung',
      `${IBAN};26.04.26;25.04.26;"Rechnung ${inv.number}; danke";Müller & Söhne;${PAYER};E2E-CSV;23,80;EUR`,
      `${IBAN};26.04.26;26.04.26;Miete Büro;Vermieter;${OTHER_PAYER};NOTPROVIDED;-1.250,00;EUR`,
      '',
    ].join('\r\n');
    const res = await upload(
      writer,
      Buffer.from(csv, 'latin1'),
      { csv_profile_id: id, payment_account_id: String(accountId) },
      'umsaetze.csv',
    );
    assert.equal(res.status, 201, res.text);
    assert.deepEqual([res.body.data.format, res.body.data.entries_new, res.body.data.matched], ['csv', 2, 1]);
    const txs = await transactionsOf(res.body.data.id);
    assert.deepEqual(
      txs.map((t: any) => [
        t.booking_date,
        t.value_date,
        t.amount,
        t.counterparty_name,
        t.remittance,
        t.end_to_end_id,
        t.status,
      ]),
      [
        [day(26), day(25), 23.8, 'Müller & Söhne', `Rechnung ${inv.number}; danke`, 'E2E-CSV', 'matched'],
        [day(26), day(26), -1250, 'Vermieter', 'Miete Büro', null, 'unmatched'],
      ],
    );
    const again = await upload(
      writer,
      Buffer.from(csv, 'latin1'),
      { csv_profile_id: id, payment_account_id: String(accountId) },
      'umsaetze.csv',
    );
    assert.deepEqual([again.body.data.entries_new, again.body.data.entries_known], [0, 2]);

    const lines = await countRows(ctx.db, 'bank_transactions');
    const bad = csv.replace('23,80', 'dreiundzwanzig');
    assert.match(
      expectProblem(
        await upload(writer, Buffer.from(bad, 'latin1'), {
          csv_profile_id: id,
          payment_account_id: String(accountId),
        }),
        422,
      ).detail,
      /row 2/,
    );
    expectProblem(await upload(writer, Buffer.from(csv, 'latin1'), { csv_profile_id: id }), 422);
    const theirs = (
      await foreign.post('/bank-csv-profiles', { name: 'Theirs', columns: { booking_date: 1, amount: 2 } })
    ).body.data.id;
    const other = expectProblem(
      await upload(writer, Buffer.from(csv, 'latin1'), {
        csv_profile_id: String(theirs),
        payment_account_id: String(accountId),
      }),
      422,
      'invalid_reference',
    );
    assert.equal(other.errors![0]!.field, 'csv_profile_id');
    assert.equal(await countRows(ctx.db, 'bank_transactions'), lines);

    expectProblem(await writer.post('/bank-csv-profiles', { name: 'X', columns: { booking_date: 1 } }), 422);
    expectProblem(
      await writer.post('/bank-csv-profiles', {
        name: 'X',
        columns: { booking_date: 1, amount: 2, credit: 3, debit: 4 },
      }),
      422,
    );
    expectProblem(
      await writer.post('/bank-csv-profiles', { name: 'X', columns: { booking_date: 1, credit: 3 } }),
      422,
    );
    expectProblem(
      await writer.post('/bank-csv-profiles', { name: 'X', columns: { booking_date: 0, amount: 2 } }),
      422,
    );
    expectProblem(
      await writer.post('/bank-csv-profiles', {
        name: 'X',
        columns: { booking_date: 1, amount: 2, colour: 3 },
      }),
      422,
    );
    expectProblem(await foreign.get(`/bank-csv-profiles/${id}`), 404);
    expectProblem(
      await reader.post('/bank-csv-profiles', { name: 'X', columns: { booking_date: 1, amount: 2 } }),
      403,
    );
    expectProblem(await writer.get('/bank-csv-profiles'), 403);

    // Credit and debit in two columns, US dates, a comma separator and thousands.
    const us = (
      await writer.post('/bank-csv-profiles', {
        name: 'US',
        delimiter: ',',
        decimal_separator: '.',
        date_format: 'MM/DD/YYYY',
        header_rows: 2,
        columns: { booking_date: 1, credit: 3, debit: 4, remittance: [2], bank_reference: 5 },
      })
    ).body.data.id;
    const usCsv =
      'Account activity\nDate,Description,Credit,Debit,Ref\n04/27/2026,"Refund, thanks","1,234.50",,R-US-1\n04/27/2026,Fee,,12.00,R-US-2\n';
    const usRes = await upload(
      writer,
      usCsv,
      { csv_profile_id: String(us), payment_account_id: String(accountId) },
      'us.csv',
    );
    assert.equal(usRes.status, 201, usRes.text);
    assert.deepEqual(
      (await transactionsOf(usRes.body.data.id)).map((t: any) => [
        t.booking_date,
        t.amount,
        t.remittance,
        t.bank_reference,
      ]),
      [
        [day(27), 1234.5, 'Refund, thanks', 'R-US-1'],
        [day(27), -12, 'Fee', 'R-US-2'],
      ],
    );
  });

  it('matches a credit with the invoice number and the exact amount, and records the payment', async () => {
    const inv = await invoice(100);
    const spelled = inv.number.replace(/-/g, ' ');
    const res = await upload(
      writer,
      camt(
        '053',
        statement([
          {
            booking: day(12),
            amount: 11900,
            name: 'Client',
            iban: PAYER,
            text: `Rechnung ${spelled} danke`,
            ref: 'M-1',
          },
        ]),
      ),
    );
    assert.equal(res.body.data.matched, 1, res.text);
    const [t] = await transactionsOf(res.body.data.id);
    assert.equal(t.status, 'matched');
    assert.equal(t.matches.length, 1);
    assert.deepEqual(
      [t.matches[0].invoice_id, t.matches[0].amount, t.matches[0].origin],
      [inv.id, 119, 'auto'],
    );
    const read = (await api.get(`/outgoing-invoices/${inv.id}`)).body.data;
    assert.deepEqual([read.payment_status, read.open_total], ['paid', 0]);
    const pays = (await api.get(`/payments?invoice_id=${inv.id}`)).body.data;
    assert.deepEqual(
      pays.map((p: any) => [p.id, p.amount, p.date, p.payment_account_id]),
      [[t.matches[0].payment_id, 119, day(12), accountId]],
    );

    // The payer's IBAN is known now: the next invoice of the client, paid without a number.
    const next = await invoice(50);
    const byIban = await upload(
      writer,
      camt('053', statement([{ booking: day(13), amount: 5950, iban: PAYER, text: 'thanks', ref: 'M-2' }])),
    );
    assert.equal(byIban.body.data.matched, 1);
    assert.equal((await api.get(`/outgoing-invoices/${next.id}`)).body.data.payment_status, 'paid');
  });

  it('imports a large file in chunks (read in a thread): matches across chunks; a cut-off import completes', async () => {
    const client = await makeClient(api);
    const payer = 'DE44500105175407324931';
    const [a, b, c] = [await invoice(210, client), await invoice(220, client), await invoice(230, client)];
    const entries: GenEntry[] = Array.from({ length: 1300 }, (_, n) => ({
      booking: day(1 + (n % 28)),
      amount: -(100 + n),
      name: 'Supplier',
      text: `Lieferung ${n}`,
      ref: `CH-${n}`,
    }));
    // Chunk one pays `a` by number (the payer's IBAN is learnt), chunk two pays `b` by that IBAN
    // and its amount alone, chunk three pays `c` by number.
    entries[5] = {
      booking: day(3),
      amount: Math.round(a.gross * 100),
      iban: payer,
      text: `RE ${a.number}`,
      ref: 'CH-a',
    };
    entries[250] = {
      booking: day(4),
      amount: Math.round(b.gross * 100),
      iban: payer,
      text: 'danke',
      ref: 'CH-b',
    };
    entries[420] = {
      booking: day(5),
      amount: Math.round(c.gross * 100),
      iban: payer,
      text: c.number,
      ref: 'CH-c',
    };
    // As if the import had stopped after its first chunks: a file of the first 300 lines.
    const cut = await upload(writer, camt('053', statement(entries.slice(0, 300))));
    assert.equal(cut.status, 201, cut.text);
    assert.deepEqual([cut.body.data.entries_new, cut.body.data.matched], [300, 2]);
    // Over 512 KB: read in a worker thread (statement.pool.ts), refused there as in place.
    const xml = camt('053', statement(entries));
    assert.ok(xml.length > 512 * 1024, `${xml.length} bytes`);
    const broken = await upload(writer, xml.replace(/<\/Document>\s*$/, ''));
    assert.equal(expectProblem(broken, 422).errors?.[0]?.field, 'file');
    const full = await upload(writer, xml);
    assert.equal(full.status, 201, full.text);
    assert.deepEqual(
      [full.body.data.entries_new, full.body.data.entries_known, full.body.data.matched],
      [1000, 300, 1],
    );
    const again = await upload(writer, xml);
    assert.deepEqual([again.body.data.entries_new, again.body.data.entries_known], [0, 1300]);
    for (const inv of [a, b, c]) {
      const pays = (await api.get(`/payments?invoice_id=${inv.id}`)).body.data;
      assert.equal(pays.length, 1, `one payment on ${inv.number}`);
      assert.equal((await api.get(`/outgoing-invoices/${inv.id}`)).body.data.payment_status, 'paid');
    }
  });

  it('leaves ambiguous and uncertain lines unmatched, with ranked suggestions', async () => {
    const c = await makeClient(api);
    const a = await invoice(200, c);
    const b = await invoice(200, c);
    const d = await invoice(300, c);
    const lines: GenEntry[] = [
      // Two numbers, amount of one: which?
      { booking: day(14), amount: 23800, text: `${a.number} ${b.number}`, ref: 'A-1' },
      // Amount only: two invoices have it.
      { booking: day(14), amount: 23800, text: 'payment', ref: 'A-2' },
      // The number, but not the amount (partial payment): a suggestion.
      { booking: day(14), amount: 10000, text: `invoice ${d.number}`, ref: 'A-3' },
    ];
    const res = (await upload(writer, camt('053', statement(lines)))).body.data;
    assert.equal(res.matched, 0);
    const txs = await transactionsOf(res.id);
    assert.deepEqual(
      txs.map((t: any) => t.status),
      ['unmatched', 'unmatched', 'unmatched'],
    );
    assert.deepEqual(
      txs[0].suggestions
        .slice(0, 2)
        .map((s: any) => s.invoice_id)
        .sort(),
      [a.id, b.id].sort(),
    );
    assert.deepEqual(txs[2].suggestions[0].invoice_id, d.id);
    assert.deepEqual(txs[2].suggestions[0].reasons, ['number_in_text']);
    for (const inv of [a, b, d])
      assert.equal((await api.get(`/outgoing-invoices/${inv.id}`)).body.data.payment_status, 'unpaid');

    // By hand: the partial payment on d, then undone, then ignored.
    const t = txs[2];
    const matched = await writer.post(`/bank-transactions/${t.id}/match`, {
      allocations: [{ invoice_id: d.id, amount: 100 }],
    });
    assert.equal(matched.status, 200, matched.text);
    assert.equal(matched.body.data.status, 'matched');
    assert.deepEqual(
      matched.body.data.matches.map((m: any) => [m.invoice_id, m.amount, m.origin]),
      [[d.id, 100, 'manual']],
    );
    let state = (await api.get(`/outgoing-invoices/${d.id}`)).body.data;
    assert.deepEqual([state.payment_status, state.open_total], ['partially_paid', 257]);
    expectProblem(
      await writer.post(`/bank-transactions/${t.id}/match`, {
        allocations: [{ invoice_id: d.id, amount: 1 }],
      }),
      409,
    );
    const undone = await writer.post(`/bank-transactions/${t.id}/unmatch`, {});
    assert.deepEqual(
      [undone.status, undone.body.data.status, undone.body.data.matches],
      [200, 'unmatched', []],
    );
    state = (await api.get(`/outgoing-invoices/${d.id}`)).body.data;
    assert.deepEqual([state.payment_status, state.open_total], ['unpaid', 357]);
    assert.deepEqual((await api.get(`/payments?invoice_id=${d.id}`)).body.data, []);
    expectProblem(await writer.post(`/bank-transactions/${t.id}/unmatch`, {}), 409);
    const ignored = await writer.post(`/bank-transactions/${t.id}/ignore`, {});
    assert.equal(ignored.body.data.status, 'ignored');
    assert.deepEqual(ignored.body.data.suggestions, []);
    expectProblem(await writer.post(`/bank-transactions/${t.id}/ignore`, {}), 409);
    const listed = await reader.get(`/bank-transactions?status=ignored&statement_id=${res.id}`);
    assert.deepEqual(
      listed.body.data.map((x: any) => x.id),
      [t.id],
    );

    // One transfer shared by two invoices of the client, by hand: half of each paid.
    const both = await writer.post(`/bank-transactions/${txs[0].id}/match`, {
      allocations: [
        { invoice_id: a.id, amount: 119 },
        { invoice_id: b.id, amount: 119 },
      ],
    });
    assert.equal(both.status, 200, both.text);
    for (const inv of [a, b])
      assert.equal(
        (await api.get(`/outgoing-invoices/${inv.id}`)).body.data.payment_status,
        'partially_paid',
      );
  });

  it('manual matching refuses what does not fit: 422 with the allocation named, 404 for others’ ids', async () => {
    const inv = await invoice(10);
    const res = (
      await upload(
        writer,
        camt(
          '053',
          statement([
            { booking: day(16), amount: 500, text: 'no number', ref: 'X-1' },
            { booking: day(16), amount: -500, text: 'out', ref: 'X-2' },
          ]),
        ),
      )
    ).body.data;
    const [credit, debit] = await transactionsOf(res.id);
    const over = expectProblem(
      await writer.post(`/bank-transactions/${credit.id}/match`, {
        allocations: [{ invoice_id: inv.id, amount: 6 }],
      }),
      422,
    );
    assert.equal(over.errors![0]!.field, 'allocations');
    const open = expectProblem(
      await writer.post(`/bank-transactions/${credit.id}/match`, {
        allocations: [
          { invoice_id: inv.id, amount: 4 },
          { invoice_id: inv.id, amount: 1 },
        ],
      }),
      422,
    );
    assert.equal(open.errors![0]!.field, 'allocations.1.invoice_id');
    expectProblem(
      await writer.post(`/bank-transactions/${debit.id}/match`, {
        allocations: [{ invoice_id: inv.id, amount: 1 }],
      }),
      422,
    );
    const foreignInvoice = await invoiceOf(foreign);
    const other = expectProblem(
      await writer.post(`/bank-transactions/${credit.id}/match`, {
        allocations: [{ invoice_id: foreignInvoice, amount: 1 }],
      }),
      422,
      'invalid_reference',
    );
    assert.equal(other.errors![0]!.field, 'allocations.0.invoice_id');
    expectProblem(
      await writer.post(`/bank-transactions/${credit.id}/match`, {
        allocations: [{ invoice_id: inv.id, amount: 1.001 }],
      }),
      422,
    );
    expectProblem(await writer.post(`/bank-transactions/${credit.id}/match`, { allocations: [] }), 422);
    expectProblem(
      await writer.post(`/bank-transactions/${credit.id}/match`, {
        allocations: [{ invoice_id: inv.id, amount: 1 }],
        note: 'x',
      }),
      422,
    );
    // Nothing half-applied.
    assert.equal((await reader.get(`/bank-transactions/${credit.id}`)).body.data.status, 'unmatched');
    assert.deepEqual((await api.get(`/payments?invoice_id=${inv.id}`)).body.data, []);
    for (const path of [`/bank-transactions/${credit.id}`, `/bank-statements/${res.id}`])
      expectProblem(await foreign.get(path), 404);
    for (const action of ['match', 'unmatch', 'ignore'])
      expectProblem(
        await foreign.post(
          `/bank-transactions/${credit.id}/${action}`,
          action === 'match' ? { allocations: [{ invoice_id: inv.id, amount: 1 }] } : {},
        ),
        404,
      );
    expectProblem(await writer.post('/bank-transactions/2147483000/ignore', {}), 404);
  });

  async function invoiceOf(as: Api): Promise<number> {
    const c = await makeClient(as);
    const inv = await makeInvoice(as, { client_id: c, line_items: [line(10)] });
    return (await bookNow(as, inv.id)).id;
  }

  it('refuses unreadable and hostile files with 422 and stores nothing; the account must be known', async () => {
    const statements = await countRows(ctx.db, 'bank_statements');
    const lines = await countRows(ctx.db, 'bank_transactions');
    const ok = camt('053', statement([{ booking: day(20), amount: 100, text: 'x', ref: 'H-1' }]));
    const bomb = `<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>&lol2;</BkToCstmrStmt></Document>`;
    const cases: [string, string | Buffer, Record<string, string>][] = [
      ['not a statement', 'hello, world\n', {}],
      ['XML bomb', bomb, {}],
      ['truncated XML', ok.slice(0, ok.length - 60), {}],
      [
        'other XML',
        '<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"/>',
        {},
      ],
      ['UTF-16', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(ok, 'utf16le')]), {}],
      ['binary', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 1, 2, 3]), {}],
      [
        'bad amount',
        mt940([statement([{ booking: day(20), amount: 100, text: 'x' }])]).replace(
          ':61:260420',
          ':61:26XX20',
        ),
        {},
      ],
      [
        'unknown IBAN',
        camt('053', statement([{ booking: day(20), amount: 100, ref: 'H-2' }], { iban: OTHER_PAYER })),
        {},
      ],
      [
        'IBAN differs',
        ok,
        {
          payment_account_id: String(
            (await api.post('/payment-accounts', { name: 'Second', iban: PAYER })).body.data.id,
          ),
        },
      ],
      ['no such account', ok, { payment_account_id: '2147483000' }],
      ['bad account id', ok, { payment_account_id: 'abc' }],
      ['unknown part', ok, { colour: 'red' }],
    ];
    for (const [what, data, fields] of cases) {
      const res = await upload(writer, data, fields);
      assert.equal(res.status, 422, `${what}: ${res.status} ${res.text}`);
      assert.ok(res.body.errors?.length > 0, what);
    }
    const foreignAccount = (await foreign.post('/payment-accounts', { name: 'Theirs' })).body.data.id;
    expectProblem(
      await upload(writer, ok, { payment_account_id: String(foreignAccount) }),
      422,
      'invalid_reference',
    );
    assert.equal(await countRows(ctx.db, 'bank_statements'), statements);
    assert.equal(await countRows(ctx.db, 'bank_transactions'), lines);
  });

  it('scopes: banking:read to read, banking:write and payments:write to import and match; 401 without a token', async () => {
    const file = camt('053', statement([{ booking: day(22), amount: 100, ref: 'SC-1' }]));
    expectProblem(await upload(ctx.anon, file), 401);
    const readOnly = expectProblem(await upload(reader, file), 403);
    assert.deepEqual(readOnly.required_scopes, ['banking:write', 'payments:write']);
    expectProblem(await upload(await ctx.as('banking:write'), file), 403);
    for (const path of [
      '/bank-statements',
      '/bank-transactions',
      '/bank-transactions/1',
      '/bank-statements/1',
    ]) {
      expectProblem(await ctx.anon.get(path), 401);
      assert.deepEqual(expectProblem(await writer.get(path), 403).required_scopes, ['banking:read']);
    }
    expectProblem(await reader.post('/bank-transactions/1/ignore', {}), 403);
    expectProblem(await reader.get('/bank-transactions?status=open'), 422);
    expectProblem(await reader.get('/bank-transactions?amount_min=1.001'), 422);
    expectProblem(await reader.get('/bank-transactions?colour=red'), 422);
    const list = await reader.get('/bank-statements?per_page=2');
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 2);
    const filtered = await reader.get(
      `/bank-transactions?payment_account_id=${accountId}&date_from=${day(12)}&date_to=${day(12)}&amount_min=100&q=rechnung`,
    );
    assert.equal(filtered.body.data.length, 1);
    assert.equal(filtered.body.data[0].amount, 119);
    assert.deepEqual((await foreign.get('/bank-transactions')).body.data, []);
  });
});
