import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { SMALL_INVOICE, smallInvoicePdf } from '../eval/scan-fixtures.js';
import { scanPdf } from '../eval/scans.js';
import type { ExtractionOutcome } from '../src/modules/incoming-invoices/extraction.model.js';
import { defaultSteps } from '../src/modules/incoming-invoices/jobs/default-steps.js';
import { enqueueExtraction } from '../src/modules/incoming-invoices/jobs/enqueue.js';
import { jobsOfInvoice } from '../src/modules/incoming-invoices/jobs/extraction-jobs.repository.js';
import { ExtractionWorker } from '../src/modules/incoming-invoices/jobs/extraction-jobs.worker.js';
import type { JobSteps } from '../src/modules/incoming-invoices/jobs/steps.js';
import { fieldsFromLayout } from '../src/modules/incoming-invoices/layout/fields.js';
import { createOcrReader, type OcrReader } from '../src/modules/incoming-invoices/ocr/ocr.pool.js';
import { type Api, describeEachDb, multipart } from './helpers.js';

/**
 * The extraction job queue (issue 11, item 6) on both databases: a scan uploaded is read by a
 * worker off the request path, a job that fails is retried and ends failed with ocr_failed,
 * and a dead worker's job is taken over once its lease has run out.
 */
describeEachDb('extraction jobs', (ctx) => {
  let writer: Api;
  let png: Buffer;
  let ocr: OcrReader;
  const stored: { invoiceId: number; outcome: ExtractionOutcome; status: string }[] = [];
  const steps: JobSteps = {
    fieldsFromLayout,
    async store(_trx, _accountId, invoiceId, outcome, status) {
      stored.push({ invoiceId, outcome, status });
    },
  };
  const storedFor = (id: number) => stored.filter((s) => s.invoiceId === id);

  before(async () => {
    writer = await ctx.as('incoming-invoice:write incoming-invoice:read');
    const scan = await scanPdf(await smallInvoicePdf(), { rotateDeg: -1, blurPx: 0.5, paper: 248, seed: 5 });
    png = scan.images[0]!;
    ocr = createOcrReader({ threads: 1, timeoutMs: 60_000, memoryMb: 256, maxPages: 5 });
  });
  after(() => ocr.close());

  /** Uploads a file and queues its reading, as the upload path does for a scan. */
  async function uploadAndQueue(data: Buffer, name: string, type: string): Promise<number> {
    const form = await multipart({ name, type, data });
    const res = await writer.request('POST', '/incoming-invoices', form.body, form.headers);
    // 202 for a scan (queued by the upload), 201 for a file read at once (queued here).
    assert.ok([201, 202].includes(res.status), res.text);
    const id = res.body.data.id as number;
    if ((await jobsOfInvoice(ctx.db, ctx.account.accountId, id)).length === 0)
      await enqueueExtraction(ctx.db, { accountId: ctx.account.accountId, invoiceId: id });
    return id;
  }

  it('over HTTP: a scan is pending after upload, then done with fields read by OCR; explicit fields win', async () => {
    const form = await multipart(
      { name: 'scan.png', type: 'image/png', data: png },
      { data: JSON.stringify({ due_date: '2026-04-30' }) },
    );
    const res = await writer.request('POST', '/incoming-invoices', form.body, form.headers);
    assert.equal(res.status, 202, res.text);
    const id = res.body.data.id as number;
    assert.equal(res.body.data.extraction.status, 'pending');
    assert.equal(res.body.data.invoice_number, null, 'nothing read yet');
    assert.equal(res.body.data.gross_total, null, 'not known yet, not 0');
    assert.equal(
      (await jobsOfInvoice(ctx.db, ctx.account.accountId, id)).length,
      1,
      'queued with the upload',
    );
    const worker = new ExtractionWorker(ctx.db, ctx.kind, {
      ocr,
      steps: defaultSteps,
      concurrency: 1,
    });
    assert.equal(await worker.runOnce(), 1);
    const d = (await writer.get(`/incoming-invoices/${id}`)).body.data;
    assert.equal(d.extraction.status, 'done');
    assert.equal(d.extraction.method, 'ocr');
    assert.equal(d.invoice_number, SMALL_INVOICE.number);
    assert.equal(d.date, SMALL_INVOICE.isoDate);
    assert.equal(d.gross_total, Number(SMALL_INVOICE.grossDecimal));
    assert.equal(d.extraction.fields.invoice_number.source, 'ocr');
    assert.ok(d.extraction.fields.invoice_number.confidence < 1);
    assert.equal(d.due_date, '2026-04-30', 'the explicit value stays');
    assert.equal(d.extraction.fields.due_date.source, 'request');
    assert.ok(d.extracted_fields.includes('invoice_number'));
  });

  it('over HTTP: a scan that cannot be read is retried and ends failed with ocr_failed', async () => {
    // A PNG signature and header over garbage: taken for a scan, unreadable by OCR.
    const broken = Buffer.concat([
      Buffer.from('89504e470d0a1a0a0000000d4948445200000100000001000806000000', 'hex'),
      Buffer.alloc(2000, 7),
    ]);
    const form = await multipart({ name: 'scan.png', type: 'image/png', data: broken });
    const res = await writer.request('POST', '/incoming-invoices', form.body, form.headers);
    assert.equal(res.status, 202, res.text);
    const id = res.body.data.id as number;
    assert.equal(res.body.data.extraction.status, 'pending');
    const worker = new ExtractionWorker(ctx.db, ctx.kind, {
      ocr,
      steps: defaultSteps,
      concurrency: 1,
      retryDelaysMs: [0, 0],
    });
    for (let attempt = 1; attempt <= 3; attempt++) {
      assert.equal(await worker.runOnce(), 1, `attempt ${attempt}`);
      const d = (await writer.get(`/incoming-invoices/${id}`)).body.data;
      assert.equal(d.extraction.status, attempt < 3 ? 'pending' : 'failed');
    }
    const d = (await writer.get(`/incoming-invoices/${id}`)).body.data;
    assert.ok(d.extraction.warnings.some((w: { code: string }) => w.code === 'ocr_failed'));
    assert.equal(d.file_id !== null, true, 'the file is kept');
    const [job] = await jobsOfInvoice(ctx.db, ctx.account.accountId, id);
    assert.deepEqual([job?.status, job?.attempts], ['failed', 3]);
  });

  it('reads an uploaded scan in a worker and stores fields read by OCR', async () => {
    const id = await uploadAndQueue(png, 'scan.png', 'image/png');
    const [queued] = await jobsOfInvoice(ctx.db, ctx.account.accountId, id);
    assert.equal(queued?.status, 'pending');
    const worker = new ExtractionWorker(ctx.db, ctx.kind, { ocr, steps, concurrency: 1 });
    assert.equal(await worker.runOnce(), 1);
    const [job] = await jobsOfInvoice(ctx.db, ctx.account.accountId, id);
    assert.equal(job?.status, 'done');
    assert.equal(job?.attempts, 1);
    const [s] = storedFor(id);
    assert.equal(s?.status, 'done');
    assert.equal(s.outcome.method, 'ocr');
    assert.equal(s.outcome.fields.invoice_number, SMALL_INVOICE.number);
    assert.equal(s.outcome.fields.date, SMALL_INVOICE.isoDate);
    assert.equal(s.outcome.fields.gross_total, SMALL_INVOICE.grossDecimal);
    assert.equal(s.outcome.provenance.invoice_number?.source, 'ocr');
    assert.equal(await worker.runOnce(), 0, 'nothing left to do');
  });

  it('retries a job that fails, then marks it failed with ocr_failed', async () => {
    const id = await uploadAndQueue(Buffer.from('not a scan at all'), 'note.txt', 'text/plain');
    const worker = new ExtractionWorker(ctx.db, ctx.kind, {
      ocr,
      steps,
      concurrency: 1,
      // The second back-off is long enough that the check right after the second failure runs
      // inside it on a loaded CI machine (50 ms was not: a CI run found the job due already).
      retryDelaysMs: [0, 1000],
    });
    assert.equal(await worker.runOnce(), 1);
    let [job] = await jobsOfInvoice(ctx.db, ctx.account.accountId, id);
    assert.deepEqual([job?.status, job?.attempts], ['pending', 1]);
    assert.match(job!.last_error!, /not a PDF, PNG, JPEG or TIFF/);
    assert.equal(storedFor(id).length, 0, 'nothing stored while it may still succeed');
    assert.equal(await worker.runOnce(), 1);
    assert.equal(await worker.runOnce(), 0, 'the third attempt waits for its back-off');
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal(await worker.runOnce(), 1);
    [job] = await jobsOfInvoice(ctx.db, ctx.account.accountId, id);
    assert.deepEqual([job?.status, job?.attempts], ['failed', 3]);
    const [s] = storedFor(id);
    assert.equal(s?.status, 'failed');
    assert.deepEqual(
      s.outcome.warnings.map((w) => w.code),
      ['ocr_failed'],
    );
    assert.deepEqual(s.outcome.fields, {});
  });

  it("takes over a killed worker's job once its lease has run out", async () => {
    const id = await uploadAndQueue(png, 'scan.png', 'image/png');
    // A fake reader: what is tested here is the lease, not OCR.
    const fake: OcrReader = {
      read: async () => ({
        ok: true,
        pageCount: 1,
        warnings: [],
        ocrMs: [],
        pages: [
          {
            page: 1,
            width: 100,
            height: 100,
            words: [{ text: 'x', x: 1, y: 1, w: 5, h: 5, confidence: 0.9 }],
          },
        ],
      }),
      close: async () => {},
    };
    // A lease long enough to still hold when the heir looks, on a busy machine too.
    const dead = new ExtractionWorker(ctx.db, ctx.kind, { ocr: fake, steps, concurrency: 1, leaseMs: 1500 });
    const [claimed] = await dead.claim(1);
    assert.equal(claimed?.incoming_invoice_id, id);
    // The dead worker never renews; another worker does not touch the job while the lease holds.
    const heir = new ExtractionWorker(ctx.db, ctx.kind, { ocr: fake, steps, concurrency: 1 });
    assert.equal(await heir.runOnce(), 0);
    await new Promise((r) => setTimeout(r, 1600));
    assert.equal(await heir.runOnce(), 1);
    const [job] = await jobsOfInvoice(ctx.db, ctx.account.accountId, id);
    assert.deepEqual([job?.status, job?.attempts], ['done', 2]);
    assert.equal(storedFor(id).length, 1, 'stored once');
  });

  it('renews the lease of a job while it runs, so no other worker takes it', async () => {
    const id = await uploadAndQueue(png, 'scan.png', 'image/png');
    let release!: () => void;
    const slow: OcrReader = {
      read: () =>
        new Promise((resolve) => {
          release = () => resolve({ ok: true, pageCount: 1, warnings: [], pages: [], ocrMs: [] });
        }),
      close: async () => {},
    };
    const busy = new ExtractionWorker(ctx.db, ctx.kind, {
      ocr: slow,
      steps,
      concurrency: 1,
      // Renewed every fifth of a lease: a heartbeat late by less than four fifths of one is fine.
      leaseMs: 600,
      pollIntervalMs: 20,
    });
    busy.start();
    while (!release) await new Promise((r) => setTimeout(r, 20));
    const other = new ExtractionWorker(ctx.db, ctx.kind, { ocr: slow, steps, concurrency: 1 });
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await other.runOnce(), 0, 'the lease is renewed by the heartbeat');
    release();
    await busy.stop();
    const [job] = await jobsOfInvoice(ctx.db, ctx.account.accountId, id);
    assert.deepEqual([job?.status, job?.attempts], ['done', 1]);
  });
});
