import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { unzipSync } from 'fflate';
import { importData } from '../src/import/index.js';
import { BOOKINGS, cents, linesOf } from './accounting.fixtures.js';
import { type Api, describeEachDb, expectProblem, type TestAccount } from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

/**
 * One-Stop-Shop sales in the DATEV export: a consumer in another EU state charged that state's
 * VAT goes to the chart's OSS revenue account (SKR03 8320, SKR04 4320) with tax key 240, the
 * state and its rate in fields 40 and 41 and the seller's VAT id in field 123, and the export's
 * sums equal the OSS report's. The same month is booked in two accounts, one per chart.
 */

/** The Buchungsstapel's bytes and its lines split into fields (quotes kept, as the file has them). */
function bookingsOf(zip: Buffer) {
  const raw = Buffer.from(unzipSync(new Uint8Array(zip))[BOOKINGS]!);
  const lines = linesOf(raw.toString('latin1'));
  return { raw, header: lines[0]!, columns: lines[1]!, rows: lines.slice(2) };
}

/** The tax DATEV derives from a gross amount at a rate (field 41), half away from zero. */
const derivedTax = (gross: number, rate: number) =>
  Math.sign(gross) * Math.round((Math.abs(gross) * rate) / (100 + rate) + 1e-9);

interface Month {
  api: Api;
  exporter: Api;
  de: { id: number; number: string };
  at: { id: number; number: string };
  fr: { id: number; number: string };
  credit: { id: number; number: string };
}

describeEachDb('DATEV export of One-Stop-Shop sales', (ctx) => {
  const months = {} as Record<'SKR03' | 'SKR04', Month>;

  /** The fixture month (October 2026) in an account of the chart. */
  async function bookMonth(account: TestAccount, chart: 'SKR03' | 'SKR04'): Promise<Month> {
    const opts = { accountId: account.accountId, userId: account.users.admin };
    await importData(
      ctx.db,
      { payment_accounts: [{ key: 'bank', name: 'Business account' }] },
      { accountId: account.accountId },
    );
    const api = await ctx.as([...ALL_INVOICE_SCOPES, 'account:read', 'account:write'], opts);
    const exporter = await ctx.as('accounting:export', opts);
    const settings = await api.patch('/account/profile', {
      accounting: { datev_consultant_number: 1001, datev_client_number: 42, chart },
    });
    assert.equal(settings.status, 200, settings.text);
    const bankId = (await api.get('/payment-accounts')).body.data[0].id;

    const deClient = await makeClient(api, { name: 'Müller & Söhne GmbH' });
    // Consumers (no VAT id) in Austria and France.
    const atClient = await makeClient(api, {
      name: 'Jörg Größl',
      street: 'Hauptstraße 1',
      zip: '1010',
      city: 'Wien',
      country_code: 'AT',
    });
    const frClient = await makeClient(api, {
      name: 'Françoise Lefèvre',
      street: '1 rue de la Paix',
      zip: '75002',
      city: 'Paris',
      country_code: 'FR',
    });
    const book = async (body: Record<string, unknown>) => {
      const inv = await makeInvoice(api, body);
      const booked = await bookNow(api, inv.id);
      return { id: inv.id as number, number: booked.invoice_number as string };
    };
    const de = await book({ client_id: deClient, date: '2026-10-05', line_items: [line(100)] });
    const at = await book({
      client_id: atClient,
      date: '2026-10-06',
      line_items: [line(100, { tax_rate: 20 })],
    });
    // 123.45 at 5.5 %: 6.79 tax, the gross 130.24 gives DATEV the same 6.79.
    const fr = await book({
      client_id: frClient,
      date: '2026-10-07',
      line_items: [line(123.45, { tax_rate: 5.5 }), line(50, { tax_rate: 20 })],
    });
    const credit = await book({
      type: 'credit',
      client_id: atClient,
      credited_invoice_id: at.id,
      date: '2026-10-20',
      line_items: [line(-10, { tax_rate: 20 })],
    });
    const paid = await api.post('/payments/outgoing-invoice', {
      invoice_id: fr.id,
      amount: 190.24,
      date: '2026-10-25',
      payment_account_id: bankId,
    });
    assert.equal(paid.status, 201, paid.text);
    return { api, exporter, de, at, fr, credit };
  }

  before(async () => {
    months.SKR03 = await bookMonth(ctx.account, 'SKR03');
    months.SKR04 = await bookMonth(ctx.other, 'SKR04');
  });

  /** Exports October and reads the ZIP's bytes as served. */
  const exportOctober = async (m: Month) => {
    const res = await m.exporter.post('/exports/datev', { date_from: '2026-10-01', date_to: '2026-10-31' });
    assert.equal(res.status, 201, res.text);
    const file = await m.exporter.app.inject({
      method: 'GET',
      url: `/api/v1/exports/${res.body.data.id}/download`,
      headers: { authorization: `Bearer ${m.exporter.token}` },
    });
    assert.equal(file.statusCode, 200);
    return bookingsOf(file.rawPayload);
  };

  for (const [chart, accounts] of [
    ['SKR03', { r19: '8400', oss: '8320', bank: '1200' }],
    ['SKR04', { r19: '4400', oss: '4320', bank: '1800' }],
  ] as const) {
    it(`${chart}: OSS rows on ${accounts.oss} with key 240, state, rate and origin; Windows-1252, CRLF`, async () => {
      const m = months[chart];
      const { raw, header, columns, rows } = await exportOctober(m);
      assert.equal(header[26], chart === 'SKR04' ? '"04"' : '"03"');
      assert.equal(columns.length, 125);
      assert.deepEqual(
        [39, 40, 122, 123].map((i) => columns[i]),
        [
          'EU-Land u. UStID (Bestimmung)',
          'EU-Steuersatz (Bestimmung)',
          'EU-Land u. UStID (Ursprung)',
          'EU-Steuersatz (Ursprung)',
        ],
      );
      for (const r of rows) assert.equal(r.length, 125);
      assert.equal(/[^\r]\n/.test(raw.toString('latin1')), false, 'CRLF only');
      assert.equal(raw.includes(Buffer.from('Ã')), false, 'no UTF-8');
      assert.ok(raw.includes(Buffer.from([0x4a, 0xf6, 0x72, 0x67])), 'Jörg: ö as F6');
      assert.ok(raw.includes(Buffer.from([0x46, 0x72, 0x61, 0x6e, 0xe7])), 'Françoise: ç as E7');

      // Amount, side, account, contra, BU key, date, Belegfeld 1, fields 40, 41, 123, 124.
      const pick = (r: string[]) => [0, 1, 6, 7, 8, 9, 10, 39, 40, 122, 123].map((i) => r[i]).join(' ');
      const q = (s: string) => `"${s}"`;
      const origin = '"DE123456789"';
      assert.deepEqual(rows.map(pick), [
        `119,00 "S" 10000 ${accounts.r19}  0510 ${q(m.de.number)}    `,
        `120,00 "S" 10001 ${accounts.oss} "240" 0610 ${q(m.at.number)} "AT" 20,00 ${origin} `,
        `130,24 "S" 10002 ${accounts.oss} "240" 0710 ${q(m.fr.number)} "FR" 5,50 ${origin} `,
        `60,00 "S" 10002 ${accounts.oss} "240" 0710 ${q(m.fr.number)} "FR" 20,00 ${origin} `,
        `12,00 "H" 10001 ${accounts.oss} "240" 2010 ${q(m.credit.number)} "AT" 20,00 ${origin} `,
        `190,24 "S" ${accounts.bank} 10002  2510 ${q(m.fr.number)}    `,
      ]);
      assert.equal(rows[1]![13], '"Jörg Größl"');
    });
  }

  it('the OSS rows reconcile with GET /reports/oss, the others with the VAT return; exact tax', async () => {
    for (const m of Object.values(months)) {
      const { rows } = await exportOctober(m);
      // Per state and rate: the gross of the key-240 rows, split as DATEV splits it.
      const byRate = new Map<string, { base: number; tax: number }>();
      for (const r of rows.filter((x) => x[8] === '"240"')) {
        const rate = Number(r[40]!.replace(',', '.'));
        const key = `${r[39]!.replaceAll('"', '')} ${rate}`;
        const gross = cents(r);
        const tax = derivedTax(gross, rate);
        const e = byRate.get(key) ?? { base: 0, tax: 0 };
        byRate.set(key, { base: e.base + gross - tax, tax: e.tax + tax });
      }
      const oss = (await m.exporter.get('/reports/oss?period=2026-Q4')).body.data;
      const fromReport = new Map<string, { base: number; tax: number }>();
      for (const c of oss.countries as {
        country: string;
        rates: { rate: number; base: number; tax: number }[];
      }[])
        for (const r of c.rates)
          fromReport.set(`${c.country} ${r.rate}`, {
            base: Math.round(r.base * 100),
            tax: Math.round(r.tax * 100),
          });
      assert.deepEqual(Object.fromEntries(byRate), Object.fromEntries(fromReport));
      // AT: 100 − 10 at 20 %; FR: 123.45 at 5.5 % (6.79) and 50 at 20 %.
      assert.deepEqual(Object.fromEntries(fromReport), {
        'AT 20': { base: 9000, tax: 1800 },
        'FR 5.5': { base: 12345, tax: 679 },
        'FR 20': { base: 5000, tax: 1000 },
      });
      assert.deepEqual(oss.totals, { base: 263.45, tax: 34.79 });

      // The rest: the German invoice, 81 of the VAT return, which has no OSS sale.
      const domestic = rows
        .filter((r) => /^1000\d$/.test(r[6]!) && r[8] === '')
        .reduce((s, r) => s + cents(r), 0);
      const vat = (await m.exporter.get('/reports/vat-return?period=2026-10')).body.data;
      const figures = Object.fromEntries(
        vat.figures.map((f: { kennzahl: string; base: number | null; tax: number | null }) => [
          f.kennzahl,
          [f.base, f.tax],
        ]),
      );
      assert.deepEqual(figures, { '81': [100, 19], '83': [null, 19] });
      assert.equal(domestic, 11900);

      // Receivables balance: every debtor row of the month against the invoices' gross less the payment.
      const invoices = await Promise.all(
        [m.de, m.at, m.fr, m.credit].map(
          async (d) => (await m.api.get(`/outgoing-invoices/${d.id}`)).body.data,
        ),
      );
      const debtors = rows.reduce(
        (s, r) => s + (/^1000\d$/.test(r[6]!) ? cents(r) : 0) - (/^1000\d$/.test(r[7]!) ? cents(r) : 0),
        0,
      );
      const gross = invoices.reduce(
        (s: number, i: { gross_total: number }) => s + Math.round(i.gross_total * 100),
        0,
      );
      assert.equal(debtors, gross - 19024);
    }
  });

  it('another rate off the One-Stop-Shop is still refused (422), naming the document', async () => {
    const m = months.SKR03;
    const client = await makeClient(m.api, { name: 'Hamburger Kunde' });
    const inv = await makeInvoice(m.api, {
      client_id: client,
      date: '2026-09-10',
      line_items: [line(10, { tax_rate: 20 })],
    });
    const booked = await bookNow(m.api, inv.id);
    const exports = (await m.exporter.get('/exports')).body.data.length;
    const p = expectProblem(
      await m.exporter.post('/exports/datev', { date_from: '2026-09-01', date_to: '2026-09-30' }),
      422,
    );
    assert.match(p.detail, new RegExp(`Document ${booked.invoice_number} has a tax rate of 20 %`));
    assert.equal((await m.exporter.get('/exports')).body.data.length, exports, 'nothing written');
  });
});
