// Responsiveness while scans are read: scans uploaded to the service as `npm start` runs it (the
// extraction worker in the API process, OCR_THREADS threads of OCR) while a connected mailbox
// of MAILBOX_BENCH_MESSAGES e-invoices (a local dovecot, when installed) is taken in, and the
// p99 of other API requests (GET /clients/{id} and GET /clients) at a fixed rate meanwhile,
// against the same requests without jobs.
import { availableParallelism, loadavg } from 'node:os';
import autocannon from 'autocannon';
import { ImapFlow } from 'imapflow';
import { generateTextPdfs, HELD_OUT_SEED } from '../eval/generate.js';
import { scanOptionsFor, scanPdf } from '../eval/scans.js';
import { Dovecot, hasDovecot, mimeMessage } from '../test/dovecot.support.js';
import { cii } from '../test/incoming-einvoices.fixtures.js';
import { environment, type Metric, markdown, writeReport } from './lib.js';
import { startSqliteService } from './sqlite-service.js';

const SCANS = Number(process.env.OCR_BENCH_SCANS ?? 8);
const MESSAGES = hasDovecot() ? Number(process.env.MAILBOX_BENCH_MESSAGES ?? 100) : 0;
const THREADS = process.env.OCR_THREADS ?? '2';
const SECONDS = 10;
/** Requests per second (all connections together): a steady rate measures latency, not queueing. */
const RATE = { one: 60, list: 30 };

interface Phase {
  one: autocannon.Result;
  list: autocannon.Result;
}

// Scans of generated invoices (varied layouts, rotated, noisy), made before the service starts.
const docs = (await generateTextPdfs({ seed: HELD_OUT_SEED + 7, count: SCANS * 2, heldOut: true }))
  .filter((d) => d.pages === 1)
  .slice(0, SCANS);
const scans = [];
for (const [i, d] of docs.entries()) scans.push((await scanPdf(d.pdf, scanOptionsFor(100 + i))).pdf);

// A mailbox full of e-invoices (each an XRechnung CII body), delivered before the service starts.
const dovecot = MESSAGES > 0 ? await new Dovecot({ bench: 'bench-secret' }).start() : undefined;
try {
  if (dovecot) {
    const imap = new ImapFlow({
      host: '127.0.0.1',
      port: dovecot.port,
      secure: false,
      auth: { user: 'bench', pass: 'bench-secret' },
      logger: false,
    });
    await imap.connect();
    for (let i = 0; i < MESSAGES; i++)
      await imap.append(
        'INBOX',
        mimeMessage({
          from: 'billing@supplier.example',
          subject: `Invoice MB-${i}`,
          messageId: `mb-${i}@supplier.example`,
          body: {
            type: 'application/xml',
            data: Buffer.from(cii({ number: `MB-${i}`, net: '100.00', tax: '19.00', gross: '119.00' })),
          },
        }),
      );
    await imap.logout();
  }

  const api = await startSqliteService({
    name: 'ocr',
    clients: 60,
    scopes: ['client:read', 'incoming-invoice:write', 'incoming-invoice:read'],
    env: { MAILBOX_ALLOW_PRIVATE: 'true', RUN_WORKER: 'true', OCR_THREADS: THREADS },
  });
  const { base, headers } = api;
  const clientUrl = `${base}/clients/${api.clientIds[0]}`;
  try {
    const measure = async (): Promise<Phase> => {
      const [one, list] = await Promise.all([
        autocannon({
          url: clientUrl,
          headers,
          connections: 4,
          overallRate: RATE.one,
          duration: SECONDS,
        }),
        autocannon({
          url: `${base}/clients?per_page=25`,
          headers,
          connections: 2,
          overallRate: RATE.list,
          duration: SECONDS,
        }),
      ]);
      return { one, list };
    };
    await autocannon({ url: clientUrl, headers, connections: 4, duration: 3 });
    const idle = await measure();

    if (dovecot) {
      const res = await fetch(`${base}/incoming-mailboxes`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          host: '127.0.0.1',
          port: dovecot.port,
          tls: false,
          username: 'bench',
          password: 'bench-secret',
        }),
      });
      if (res.status !== 201) throw new Error(`mailbox: ${res.status} ${await res.text()}`);
    }
    // Every incoming invoice that is not one of the uploaded scans came from the mailbox.
    const fromMailbox = async () => {
      const res = await fetch(`${base}/incoming-invoices?per_page=1`, { headers });
      return ((await res.json()) as { meta: { total: number } }).meta.total - SCANS;
    };

    const uploaded = performance.now();
    const ids: number[] = [];
    for (const [i, pdf] of scans.entries()) {
      const form = new FormData();
      form.append('file', new Blob([pdf], { type: 'application/pdf' }), `scan-${i}.pdf`);
      const res = await fetch(`${base}/incoming-invoices`, { method: 'POST', headers, body: form });
      const body = (await res.json()) as { data: { id: number; extraction: { status: string } } };
      if (res.status !== 202 || body.data.extraction.status !== 'pending')
        throw new Error(`upload ${i}: ${res.status} ${JSON.stringify(body)}`);
      ids.push(body.data.id);
    }
    const statuses = async () => {
      const out = new Map<string, number>();
      for (const id of ids) {
        const res = await fetch(`${base}/incoming-invoices/${id}`, { headers });
        const status = ((await res.json()) as { data: { extraction: { status: string } } }).data.extraction
          .status;
        out.set(status, (out.get(status) ?? 0) + 1);
      }
      return out;
    };
    // The first job starts once a thread has loaded the models: measure from then on.
    await new Promise((r) => setTimeout(r, 2000));
    const loaded = await measure();
    const loadAtEnd = loadavg()[0]!;
    const mailTaken = await fromMailbox();
    const afterWindow = await statuses();
    const stillPending = afterWindow.get('pending') ?? 0;
    let all = afterWindow;
    while ((all.get('pending') ?? 0) > 0 && performance.now() - uploaded < 240_000) {
      await new Promise((r) => setTimeout(r, 2000));
      all = await statuses();
    }
    const allDoneS = (performance.now() - uploaded) / 1000;

    const row = (phase: string, r: autocannon.Result, what: string): Metric[] => [
      { metric: `${phase}: ${what} p50`, value: r.latency.p50, unit: 'ms' },
      {
        metric: `${phase}: ${what} p99`,
        value: r.latency.p99,
        unit: 'ms',
        note: phase === 'no jobs' ? '' : 'target < 100 ms',
      },
      { metric: `${phase}: ${what} errors/non-2xx`, value: r.errors + r.timeouts + r.non2xx, unit: 'count' },
    ];
    const results: Metric[] = [
      ...row('no jobs', idle.one, 'GET /clients/{id}'),
      ...row('no jobs', idle.list, 'GET /clients'),
      ...row('OCR jobs running', loaded.one, 'GET /clients/{id}'),
      ...row('OCR jobs running', loaded.list, 'GET /clients'),
      {
        metric: 'scans still pending when the window closed',
        value: stillPending,
        unit: 'count',
        note: `of ${SCANS}: jobs ran through the whole window`,
      },
      {
        metric: 'all scans read',
        value: Math.round(allDoneS),
        unit: 's',
        note: [...all].map(([s, n]) => `${n} × ${s}`).join(', '),
      },
      {
        metric: 'mailbox messages taken by the end of the window',
        value: mailTaken,
        unit: 'count',
        note: dovecot ? `of ${MESSAGES} e-invoices in one IMAP mailbox` : 'not run: dovecot not installed',
      },
      { metric: 'load average (1 min) at the end of the window', value: loadAtEnd, unit: '' },
    ];
    const report = {
      name: 'ocr-load',
      date: new Date().toISOString(),
      environment: {
        ...environment(),
        cores: availableParallelism(),
        database: 'sqlite',
        service: `src/server.ts as npm start runs it, extraction worker in the API process, OCR_THREADS=${THREADS}`,
        scans: `${SCANS} image-only PDFs, 300 dpi, rotated and noisy`,
        mailbox: dovecot ? `${MESSAGES} messages, each an XRechnung CII body, in a local dovecot` : 'none',
        rate: `GET /clients/{id} ${RATE.one}/s, GET /clients ${RATE.list}/s, ${SECONDS} s per phase`,
      },
      results,
    };
    await writeReport(report);
    console.log(markdown(report));
    const p99 = Math.max(loaded.one.latency.p99, loaded.list.latency.p99);
    console.log(
      `target p99 < 100 ms while OCR jobs run: ${p99 < 100 && stillPending > 0 ? 'MET' : 'NOT MET'} (p99 ${p99} ms, ${stillPending} scans still pending at the end of the window)`,
    );
  } finally {
    await api.stop();
  }
} finally {
  await dovecot?.stop();
}
