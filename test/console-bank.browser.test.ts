import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { camt } from './bank.fixtures.js';
import {
  assertFitsScreen,
  launchBrowser,
  listen,
  onGermanPhone,
  screenshots,
  signIn,
  withPassword,
} from './browser.js';
import { describeEachDb } from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';

const IBAN = 'DE02120300000000202051';
const PAYER = 'DE89370400440532013000';
const PRINTER = 'DE75512108001245126199';

describeEachDb('console bank page in a real browser', (ctx) => {
  let base: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let file: string;
  let numbers: string[];
  let email: string;
  const shot = screenshots(ctx.kind);

  before(async () => {
    base = await listen(ctx.app);
    email = await withPassword(ctx.db, ctx.account.users.admin);
    const api = await ctx.as([...ALL_INVOICE_SCOPES, 'banking:write', 'incoming-invoice:write']);
    await api.post('/payment-accounts', { name: 'Giro', iban: IBAN });
    const supplier = await api.post('/suppliers', { name: 'Druckerei Weiß KG', iban: PRINTER });
    const bill = await api.post('/incoming-invoices', {
      supplier_id: supplier.body.data.id,
      invoice_number: 'DW-2026-118',
      gross_total: 714,
    });
    assert.equal(bill.status, 201, bill.text);
    const client = await makeClient(api, { name: 'Bäckerei Müller & Söhne GmbH' });
    numbers = [];
    for (const net of [100, 250, 250, 480.5]) {
      const inv = await makeInvoice(api, { client_id: client, line_items: [line(net)] });
      numbers.push((await bookNow(api, inv.id)).invoice_number);
    }
    file = join(tmpdir(), `console-bank-${ctx.kind}-${process.pid}.xml`);
    await writeFile(
      file,
      camt('053', {
        iban: IBAN,
        opening: 500000,
        from: '2026-06-01',
        to: '2026-06-05',
        entries: [
          // Certain: number and the exact amount.
          {
            booking: '2026-06-01',
            amount: 11900,
            name: 'BAECKEREI MUELLER',
            iban: PAYER,
            text: `RE ${numbers[0]}`,
            ref: 'W1',
          },
          // Two invoices of 297.50: which one? A suggestion each.
          {
            booking: '2026-06-02',
            amount: 29750,
            name: 'BAECKEREI MUELLER',
            iban: PAYER,
            text: 'Rechnung Mai',
            ref: 'W2',
          },
          // A partial payment naming its invoice.
          {
            booking: '2026-06-03',
            amount: 30000,
            name: 'BAECKEREI MUELLER',
            iban: PAYER,
            text: `Anzahlung ${numbers[3]} gem. Vereinbarung vom 28.05.`,
            ref: 'W3',
          },
          {
            booking: '2026-06-04',
            amount: 1250,
            name: 'FINANZAMT BERLIN-MITTE',
            text: 'Erstattung Saeumniszuschlag',
            ref: 'W4',
          },
          {
            booking: '2026-06-05',
            amount: -4990,
            name: 'Telekom Deutschland GmbH',
            text: 'Rechnung 06/2026',
            ref: 'W5',
          },
          // A first instalment to the printer: the number fits, the amount does not.
          {
            booking: '2026-06-05',
            amount: -30000,
            name: 'DRUCKEREI WEISS KG',
            iban: PRINTER,
            text: 'Abschlag DW-2026-118',
            ref: 'W6',
          },
        ],
      }),
    );
    browser = await launchBrowser({ viewport: { width: 1100, height: 760 } });
  });
  after(async () => {
    await browser?.close();
  });

  it('uploads a statement, shows what waits with its suggestions, matches with one click and sets aside', async () => {
    const page = await browser.context.newPage();
    await signIn(page, base, email, '/console/bank');
    assert.equal(await page.title(), 'Bank · Project and Invoicing');

    await page.getByLabel('Statement file').setInputFiles(file);
    await page.getByRole('button', { name: 'Import' }).click();
    await page.waitForURL(/\/console\/bank\?imported=\d+$/);
    assert.match(
      await page.getByRole('status').innerText(),
      /6 new lines, 0 already known, 1 matched automatically/,
    );
    const rows = page
      .getByRole('region', { name: 'Money received, waiting for a decision' })
      .getByRole('row');
    assert.equal(await rows.count(), 4); // the head and three lines of money received
    const out = page.getByRole('region', { name: 'Money paid out, waiting for a decision' }).getByRole('row');
    assert.equal(await out.count(), 3); // the head, the phone bill and the instalment
    assert.match(await out.nth(2).innerText(), /DW-2026-118 Druckerei Weiß KG · €300\.00\s+€714\.00 open/);
    await shot(page, 'console-bank.png');

    await page.getByRole('button', { name: `Match with ${numbers[3]}` }).click();
    await page.waitForURL(`${base}/console/bank?done=matched`);
    assert.equal(
      await page.getByRole('status').innerText(),
      'Matched: the payment is recorded on the invoice.',
    );
    assert.equal(await rows.count(), 3);
    await page.getByRole('button', { name: /^Set aside: 2026-06-04/ }).click();
    await page.waitForURL(`${base}/console/bank?done=ignored`);
    assert.equal(await rows.count(), 2);

    await page.getByRole('button', { name: 'Match with DW-2026-118' }).click();
    await page.waitForURL(`${base}/console/bank?done=matched`);
    assert.equal(await out.count(), 2); // the phone bill waits
    await page.close();
  });

  it('on a phone, in German, the lines and their buttons fit the screen', async () => {
    await onGermanPhone(browser, base, '/console/bank', async (page) => {
      assert.equal(await page.title(), 'Bank · Projekte und Rechnungen');
      assert.ok(
        await page
          .getByRole('button', { name: /^Zuordnen zu / })
          .first()
          .isVisible(),
      );
      await assertFitsScreen(page);
      await shot(page, 'console-bank-phone-de.png');
    });
  });
});
