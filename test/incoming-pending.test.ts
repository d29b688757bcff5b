import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { ExtractionOutcome } from '../src/modules/incoming-invoices/extraction.model.js';
import { defaultSteps } from '../src/modules/incoming-invoices/jobs/default-steps.js';
import { ExtractionWorker } from '../src/modules/incoming-invoices/jobs/extraction-jobs.worker.js';
import type { JobSteps } from '../src/modules/incoming-invoices/jobs/steps.js';
import type { OcrReader } from '../src/modules/incoming-invoices/ocr/ocr.pool.js';
import { WebhookWorker } from '../src/modules/webhooks/webhooks.worker.js';
import { type Api, describeEachDb, expectProblem, multipart } from './helpers.js';
import { Receiver, sleep, waitFor } from './webhooks.support.js';

// A PNG signature and header: taken for a scan, so read by a job after the request.
const SCAN = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d4948445200000100000001000806000000', 'hex'),
  Buffer.alloc(200, 7),
]);

/** OCR is not what is tested here: the reader answers one page, the layout step the fields. */
const fakeOcr: OcrReader = {
  read: async () => ({ ok: true, pageCount: 1, warnings: [], ocrMs: [], pages: [] }),
  close: async () => {},
};
const READ: ExtractionOutcome = {
  fields: {
    invoice_number: 'SCAN-42',
    date: '2026-11-30',
    currency: 'EUR',
    net_total: '100.00',
    tax_total: '19.00',
    gross_total: '119.00',
  },
  provenance: {
    invoice_number: { source: 'ocr', confidence: 0.8 },
    date: { source: 'ocr', confidence: 0.8 },
    currency: { source: 'ocr', confidence: 0.8 },
    net_total: { source: 'ocr', confidence: 0.8 },
    tax_total: { source: 'ocr', confidence: 0.8 },
    gross_total: { source: 'ocr', confidence: 0.8 },
  },
  warnings: [],
};
const steps: JobSteps = { ...defaultSteps, fieldsFromLayout: () => structuredClone(READ) };

/**
 * The honest pending state (issue 42, item 2) on both databases: a scan is answered 202 with
 * its address and null where nothing is known yet; when the job ends the event
 * incoming-invoice:extracted is delivered once, the change feed shows the document read, and
 * GET answers it for integrations that poll.
 */
describeEachDb('incoming invoices: pending, then extracted', (ctx) => {
  let api: Api;
  let receiver: Receiver;
  const workers: { stop(): Promise<void> }[] = [];

  before(async () => {
    api = await ctx.as('integration incoming-invoice:write incoming-invoice:read');
    receiver = await new Receiver().start();
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await receiver.stop();
  });

  const upload = async (data: Buffer, name: string, type: string, fields?: unknown) => {
    const form = await multipart({ name, type, data }, fields ? { data: JSON.stringify(fields) } : {});
    return api.request('POST', '/incoming-invoices', form.body, form.headers);
  };

  it('subscribing to incoming-invoice:extract needs incoming-invoice:read', async () => {
    const bare = await ctx.as('integration');
    const p = expectProblem(
      await bare.post('/webhooks', { url: `${receiver.url}/x`, scopes: ['incoming-invoice:extract'] }),
      403,
      'insufficient_scope',
    );
    assert.deepEqual(p.required_scopes, ['integration', 'incoming-invoice:read']);
  });

  it('a scan: 202 with Location and nulls, then done, the event delivered once and the feed showing it', async () => {
    const hook = await api.post('/webhooks', {
      url: `${receiver.url}/extracted`,
      scopes: ['incoming-invoice:extract'],
    });
    assert.equal(hook.status, 201, hook.text);
    const feedStart = (await api.get('/changes?limit=1000')).body.meta.next_cursor as string;

    const res = await upload(SCAN, 'scan.png', 'image/png', { description: 'from the scanner' });
    assert.equal(res.status, 202, res.text);
    const id = res.body.data.id as number;
    assert.equal(res.headers.location, `/api/v1/incoming-invoices/${id}`);
    const pending = res.body.data;
    assert.equal(pending.extraction.status, 'pending');
    for (const k of [
      'net_total',
      'tax_total',
      'gross_total',
      'open_total',
      'currency',
      'invoice_number',
      'date',
    ])
      assert.equal(pending[k], null, `${k} is not known yet`);
    assert.equal(pending.description, 'from the scanner');
    const polled = (await api.get(`/incoming-invoices/${id}`)).body.data;
    assert.deepEqual(polled, pending, 'GET answers the same while pending');

    const jobs = new ExtractionWorker(ctx.db, ctx.kind, { ocr: fakeOcr, steps, concurrency: 1 });
    const hooks = new WebhookWorker(ctx.db, ctx.kind, {
      secretKey: ctx.app.config.secretKey,
      allowPrivate: true,
      pollIntervalMs: 10,
    });
    workers.push(jobs, hooks);
    hooks.start();
    assert.equal(await jobs.runOnce(), 1);
    assert.equal(await jobs.runOnce(), 0, 'nothing left to read');

    const done = (await api.get(`/incoming-invoices/${id}`)).body.data;
    assert.equal(done.extraction.status, 'done');
    assert.equal(done.invoice_number, 'SCAN-42');
    assert.deepEqual(
      [done.net_total, done.tax_total, done.gross_total, done.open_total],
      [100, 19, 119, 119],
    );
    assert.equal(done.currency, 'EUR');

    await waitFor('the event', () => receiver.on('/extracted').length === 1);
    await sleep(300);
    const got = receiver.on('/extracted');
    assert.equal(got.length, 1, 'delivered once');
    const body = JSON.parse(got[0]!.body);
    assert.equal(body.event, 'incoming-invoice:extracted');
    assert.deepEqual(body.data, done, 'the event carries the document as GET answers it');

    type Entry = {
      resource: string;
      id: number;
      data: { extraction: { status: string }; gross_total: number };
    };
    let mine: Entry[] = [];
    // On PostgreSQL the feed waits for transactions still running (the workers', and any other
    // database's on the same server, as transaction ids are server-wide): poll as a client does.
    await waitFor(
      'the feed',
      async () => {
        const feed = (await api.get(`/changes?after=${encodeURIComponent(feedStart)}&limit=1000`)).body
          .data as Entry[];
        mine = feed.filter((e) => e.resource === 'incoming_invoice' && e.id === id);
        return mine.length > 0;
      },
      30_000,
    );
    assert.equal(mine.at(-1)!.data.extraction.status, 'done');
    assert.equal(mine.at(-1)!.data.gross_total, 119);
  });

  it('totals given with a scan are shown while pending; a document read at once is 201 with its event', async () => {
    const res = await upload(SCAN, 'scan.png', 'image/png', { gross_total: 50, tax_total: 0 });
    assert.equal(res.status, 202, res.text);
    assert.deepEqual([res.body.data.net_total, res.body.data.gross_total], [50, 50]);
    assert.equal(res.body.data.currency, null);

    const before = receiver.on('/extracted').length;
    const xml = await upload(Buffer.from(UBL), 'invoice.xml', 'application/xml');
    assert.equal(xml.status, 201, xml.text);
    assert.equal(xml.body.data.extraction.status, 'done');
    assert.equal(xml.body.data.gross_total, 11.9);
    await waitFor('the event of the XML', () => receiver.on('/extracted').length === before + 1);
    assert.equal(JSON.parse(receiver.on('/extracted').at(-1)!.body).data.id, xml.body.data.id);

    const none = await api.post('/incoming-invoices', { invoice_number: 'TYPED-1', gross_total: 5 });
    assert.equal(none.status, 201, none.text);
    assert.equal(none.body.data.extraction.status, 'skipped');
    await sleep(300);
    assert.equal(receiver.on('/extracted').length, before + 1, 'nothing read, no event');
  });
});

const UBL = `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
  xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:ID>UBL-7</cbc:ID>
  <cbc:IssueDate>2026-11-02</cbc:IssueDate>
  <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:AccountingSupplierParty><cac:Party><cac:PartyName><cbc:Name>Lieferant GmbH</cbc:Name></cac:PartyName></cac:Party></cac:AccountingSupplierParty>
  <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">1.90</cbc:TaxAmount></cac:TaxTotal>
  <cac:LegalMonetaryTotal>
    <cbc:TaxExclusiveAmount currencyID="EUR">10.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">11.90</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount currencyID="EUR">11.90</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
</Invoice>`;
