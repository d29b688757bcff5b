import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { setPassword } from '../src/modules/users/passwords.service.js';
import { camt, type GenEntry } from './bank.fixtures.js';
import { type Api, countRows, describeEachDb, multipart } from './helpers.js';
import { ALL_INVOICE_SCOPES, bookNow, line, makeClient, makeInvoice } from './invoicing.fixtures.js';
import { Browser, pageError } from './web-client.js';

const PASSWORD = 'correct horse battery staple';
const IBAN = 'DE02120300000000202051';
const PAYER = 'DE89370400440532013000';
const SUPPLIER_IBAN = 'DE75512108001245126199';

/** The console's bank page over HTTP: upload, the unmatched lines with suggestions, match, set aside. */
describeEachDb('console: bank', (ctx) => {
  let admin: Browser;
  let member: Browser;
  let api: Api;
  let clientId: number;
  let seq = 0;

  const emailOf = async (id: number) =>
    (await ctx.db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow()).email;
  const invoice = async (net: number) => {
    const inv = await makeInvoice(api, { client_id: clientId, line_items: [line(net)] });
    const booked = await bookNow(api, inv.id);
    return { id: booked.id as number, number: booked.invoice_number as string };
  };
  /** Uploads a file as the page's form does (multipart with the CSRF token). */
  const upload = async (as: Browser, name: string, data: string, csrf = as.csrf()) => {
    const { body, headers } = await multipart(
      { name, type: 'application/xml', data },
      csrf ? { _csrf: csrf } : {},
    );
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/console/bank/statements',
      headers: { ...headers, cookie: as.cookieHeader },
      payload: body,
    });
    return { status: res.statusCode, location: res.headers.location as string | undefined, body: res.body };
  };
  const statement = (entries: Omit<GenEntry, 'booking'>[]) =>
    camt('053', {
      iban: IBAN,
      id: `CB${++seq}`,
      opening: 0,
      from: '2026-06-01',
      to: '2026-06-01',
      entries: entries.map((e) => ({ booking: '2026-06-01', ...e })),
    });

  before(async () => {
    await setPassword(ctx.db, ctx.account.users.admin, PASSWORD);
    await setPassword(ctx.db, ctx.account.users.member, PASSWORD);
    admin = new Browser(ctx.app);
    await admin.signIn(await emailOf(ctx.account.users.admin), PASSWORD);
    member = new Browser(ctx.app);
    await member.signIn(await emailOf(ctx.account.users.member), PASSWORD);
    api = await ctx.as([
      ...ALL_INVOICE_SCOPES,
      'banking:read',
      'banking:write',
      'incoming-invoice:read',
      'incoming-invoice:write',
    ]);
    assert.equal((await api.post('/payment-accounts', { name: 'Giro', iban: IBAN })).status, 201);
    clientId = await makeClient(api);
  });

  it('shows the upload form and the navigation link; nothing to decide yet', async () => {
    const page = await admin.get('/console/bank');
    assert.equal(page.status, 200);
    assert.match(page.body, /href="\/console\/bank"[^>]*aria-current="page"/);
    assert.match(page.body, /enctype="multipart\/form-data"/);
    assert.match(page.body, /Nothing to decide/);
  });

  it('imports a statement: certain lines matched, the rest listed with ranked suggestions and reasons; one click matches, another sets aside', async () => {
    const certain = await invoice(100); // 119.00
    const partly = await invoice(200); // 238.00
    await admin.get('/console/bank');
    const res = await upload(
      admin,
      'june.xml',
      statement([
        {
          amount: 11900,
          name: 'Kunde AG',
          iban: PAYER,
          text: `Rechnung ${certain.number}`,
          ref: `B${seq}-1`,
        },
        {
          amount: 10000,
          name: 'Kunde AG',
          iban: PAYER,
          text: `Anzahlung ${partly.number}`,
          ref: `B${seq}-2`,
        },
        { amount: 4321, name: 'Finanzamt', text: 'Erstattung', ref: `B${seq}-3` },
        { amount: -990, text: 'Kontofuehrung', ref: `B${seq}-4` },
      ]),
    );
    assert.equal(res.status, 303, res.body);
    assert.match(res.location!, /^\/console\/bank\?imported=\d+$/);
    const page = await admin.get(res.location!);
    assert.match(page.body, /4 new lines, 0 already known, 1 matched automatically/);
    // Money received that waits: the partial payment with its suggestion, the refund without one.
    assert.match(page.body, /Lines of money received not matched yet: 2/);
    // The bank's fee waits among the money paid out, where no incoming invoice fits it.
    assert.match(page.body, /Lines of money paid out not matched yet: 1/);
    assert.match(page.body, /Kontofuehrung/);
    assert.match(page.body, /No incoming invoice fits/);
    assert.ok(page.body.includes(`Match with ${partly.number}`));
    assert.match(page.body, /number in the purpose/);
    assert.match(page.body, /No invoice fits/);

    const [waiting, refund] = (await api.get('/bank-transactions?status=unmatched&amount_min=0.01')).body
      .data;
    const matched = await admin.post(`/console/bank/transactions/${waiting.id}/match`);
    assert.equal(matched.status, 303);
    assert.equal(matched.location, '/console/bank?done=matched');
    const tx = (await api.get(`/bank-transactions/${waiting.id}`)).body.data;
    assert.equal(tx.status, 'matched');
    assert.deepEqual(
      tx.matches.map((m: { invoice_id: number; amount: number; origin: string }) => [
        m.invoice_id,
        m.amount,
        m.origin,
      ]),
      [[partly.id, 100, 'manual']],
    );
    const ignored = await admin.post(`/console/bank/transactions/${refund.id}/ignore`);
    assert.equal(ignored.location, '/console/bank?done=ignored');
    const after = await admin.get('/console/bank?done=ignored');
    assert.match(after.body, /Set aside\./);
    assert.match(after.body, /Nothing to decide/);

    // Decided already (a second tab): the page says so, nothing changes.
    const again = await admin.post(`/console/bank/transactions/${waiting.id}/match`);
    assert.equal(again.location, '/console/bank?error=gone');
    assert.equal(pageError(await admin.get(again.location!)), 'This line was decided meanwhile.');
    // The same file again stores nothing new.
    const twice = await upload(admin, 'june.xml', statement([]));
    assert.equal(twice.status, 303);
  });

  it('money paid out: listed apart with the incoming invoice, its supplier, what is open and the reasons; one click matches, another sets aside', async () => {
    const supplier = (await api.post('/suppliers', { name: 'Papier Müller GmbH', iban: SUPPLIER_IBAN })).body
      .data.id;
    const bill = await api.post('/incoming-invoices', {
      supplier_id: supplier,
      invoice_number: 'PM-7731',
      gross_total: 595,
    });
    assert.equal(bill.status, 201, bill.text);
    await admin.get('/console/bank');
    const res = await upload(
      admin,
      'out.xml',
      statement([
        // A first instalment: the number fits, the amount does not, so it is only suggested.
        {
          amount: -20000,
          name: 'Papier Mueller',
          iban: SUPPLIER_IBAN,
          text: 'PM-7731 1. Rate',
          ref: `O${seq}-1`,
        },
        { amount: -1250, name: 'Lohn', text: 'Gehalt Juni', ref: `O${seq}-2` },
      ]),
    );
    assert.equal(res.status, 303, res.body);
    const page = await admin.get(res.location!);
    assert.match(page.body, /0 matched automatically/);
    const section = page.body.slice(page.body.indexOf('id="paid-out"'));
    assert.match(section, /Lines of money paid out not matched yet: 3/);
    assert.match(section, /<th scope="col">To<\/th>/);
    assert.match(section, /<strong>PM-7731<\/strong> Papier Müller GmbH · €200\.00/);
    assert.match(section, /€595\.00 open/);
    assert.match(section, /number in the purpose/);
    assert.match(section, /IBAN of this supplier/);
    assert.ok(section.includes('Match with PM-7731'));

    const lines = (await api.get('/bank-transactions?status=unmatched&amount_max=-0.01')).body.data as {
      id: number;
      amount: number;
    }[];
    const rate = lines.find((l) => l.amount === -200)!;
    const salary = lines.find((l) => l.amount === -12.5)!;
    const matched = await admin.post(`/console/bank/transactions/${rate.id}/match`);
    assert.equal(matched.location, '/console/bank?done=matched');
    const tx = (await api.get(`/bank-transactions/${rate.id}`)).body.data;
    assert.equal(tx.status, 'matched');
    assert.deepEqual(
      tx.matches.map((m: { invoice_id: number; amount: number; invoice_kind: string }) => [
        m.invoice_id,
        m.amount,
        m.invoice_kind,
      ]),
      [[bill.body.data.id, 200, 'incoming']],
    );
    assert.equal((await api.get(`/incoming-invoices/${bill.body.data.id}`)).body.data.paid_total, 200);
    const ignored = await admin.post(`/console/bank/transactions/${salary.id}/ignore`);
    assert.equal(ignored.location, '/console/bank?done=ignored');
    assert.equal((await api.get(`/bank-transactions/${salary.id}`)).body.data.status, 'ignored');
    const after = await admin.get('/console/bank');
    assert.match(after.body, /Lines of money paid out not matched yet: 1/);
    assert.doesNotMatch(after.body, /Gehalt Juni/);
  });

  it('a file it cannot read, or none: 422 with the reason on the page, nothing stored', async () => {
    await admin.get('/console/bank');
    const before = await countRows(ctx.db, 'bank_statements');
    const bad = await upload(admin, 'notes.txt', 'hello, this is no statement');
    assert.equal(bad.status, 422);
    assert.match(bad.body, /id="upload-error"/);
    assert.match(bad.body, /aria-invalid="true"/);
    const none = await upload(admin, 'empty.xml', '');
    assert.equal(none.status, 422);
    assert.match(none.body, /Choose a statement file first/);
    assert.equal(await countRows(ctx.db, 'bank_statements'), before);
  });

  it('refuses forms without the CSRF token, members, visitors without a session and other accounts’ lines', async () => {
    await admin.get('/console/bank');
    assert.equal((await upload(admin, 'x.xml', statement([]), '')).status, 403);
    assert.equal((await admin.post('/console/bank/transactions/1/ignore', { _csrf: '' })).status, 403);
    assert.equal((await member.get('/console/bank')).status, 403);
    const anon = await ctx.app.inject({ url: '/console/bank' });
    assert.equal(anon.statusCode, 303);
    assert.match(String(anon.headers.location), /^\/signin/);

    const foreign = await ctx.as([...ALL_INVOICE_SCOPES, 'banking:read', 'banking:write'], {
      accountId: ctx.other.accountId,
    });
    const otherIban = 'DE75512108001245126199';
    await foreign.post('/payment-accounts', { name: 'Theirs', iban: otherIban });
    const file = camt('053', {
      iban: otherIban,
      opening: 0,
      from: '2026-06-02',
      to: '2026-06-02',
      entries: [{ booking: '2026-06-02', amount: 5000, text: 'theirs', ref: 'FOREIGN-1' }],
    });
    const { body, headers } = await multipart({ name: 'f.xml', type: 'application/xml', data: file });
    const theirs = await foreign.request('POST', '/bank-statements', body, headers);
    assert.equal(theirs.status, 201, theirs.text);
    const id = (await foreign.get(`/bank-transactions?statement_id=${theirs.body.data.id}`)).body.data[0].id;
    await admin.get('/console/bank');
    assert.equal((await admin.post(`/console/bank/transactions/${id}/ignore`)).status, 404);
    assert.equal((await foreign.get(`/bank-transactions/${id}`)).body.data.status, 'unmatched');
  });
});
