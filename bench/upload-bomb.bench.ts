// Bounded resources: PDF bombs (a ~110 KB file whose content stream
// inflates to 110 MB) uploaded four at a time, over and over, to the service as `npm start`
// runs it, while autocannon measures GET /clients/{id}; against the same load without uploads.
import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import { pdfBomb } from '../test/upload-bombs.js';
import { environment, type Metric, markdown, writeReport } from './lib.js';
import { startSqliteService } from './sqlite-service.js';

const CONNECTIONS = 10;
const SECONDS = 10;

/** Resident and peak resident memory of a process, in MB (Linux /proc). */
async function memoryOf(pid: number) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]) / 1024;
  return { rss: Math.round(kb('VmRSS')), peak: Math.round(kb('VmHWM')) };
}

// Every bomb logs a warning (pdf_too_large): not what is measured here.
const api = await startSqliteService({
  name: 'bomb',
  clients: 1,
  scopes: ['client:read', 'incoming-invoice:write'],
});
const { base, headers } = api;
const clientUrl = `${base}/clients/${api.clientIds[0]}`;
const bomb = pdfBomb(110);
try {
  const measure = () =>
    autocannon({
      url: clientUrl,
      headers,
      connections: CONNECTIONS,
      duration: SECONDS,
    });
  await autocannon({ url: clientUrl, headers, connections: CONNECTIONS, duration: 3 });
  const idle = await measure();
  const before = await memoryOf(api.child.pid!);

  let running = true;
  const bombTimes: number[] = [];
  const statuses = new Map<number, number>();
  const uploadOne = async () => {
    const form = new FormData();
    form.append('file', new Blob([bomb], { type: 'application/pdf' }), 'bomb.pdf');
    const t = performance.now();
    const res = await fetch(`${base}/incoming-invoices`, { method: 'POST', headers, body: form });
    const body = (await res.json()) as { data?: { extracted_fields: string[] } };
    bombTimes.push(performance.now() - t);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    if (res.status === 201 && body.data!.extracted_fields.length) throw new Error('a bomb gave data');
  };
  const bombs = (async () => {
    while (running) await Promise.all([uploadOne(), uploadOne(), uploadOne(), uploadOne()]);
  })();
  const loaded = await measure();
  running = false;
  await bombs;
  const after = await memoryOf(api.child.pid!);

  bombTimes.sort((a, b) => a - b);
  const results: Metric[] = [
    { metric: 'no uploads: GET /clients/{id} p50', value: idle.latency.p50, unit: 'ms' },
    { metric: 'no uploads: GET /clients/{id} p99', value: idle.latency.p99, unit: 'ms' },
    { metric: 'no uploads: requests/s', value: Math.round(idle.requests.average), unit: 'req/s' },
    { metric: 'four bombs at a time: GET /clients/{id} p50', value: loaded.latency.p50, unit: 'ms' },
    {
      metric: 'four bombs at a time: GET /clients/{id} p99',
      value: loaded.latency.p99,
      unit: 'ms',
      note: 'target < 100 ms',
    },
    { metric: 'four bombs at a time: GET /clients/{id} max', value: loaded.latency.max, unit: 'ms' },
    {
      metric: 'four bombs at a time: requests/s',
      value: Math.round(loaded.requests.average),
      unit: 'req/s',
    },
    {
      metric: 'four bombs at a time: GET errors/non-2xx',
      value: loaded.errors + loaded.timeouts + loaded.non2xx,
      unit: 'count',
    },
    {
      metric: 'bombs uploaded',
      value: bombTimes.length,
      unit: 'count',
      note: [...statuses].map(([s, n]) => `${n} × ${s}`).join(', '),
    },
    { metric: 'bomb upload p50', value: Math.round(bombTimes[bombTimes.length >> 1] ?? 0), unit: 'ms' },
    { metric: 'bomb upload max', value: Math.round(bombTimes.at(-1) ?? 0), unit: 'ms' },
    { metric: 'server RSS before the bombs', value: before.rss, unit: 'MB' },
    { metric: 'server peak RSS (whole run)', value: after.peak, unit: 'MB' },
    { metric: 'server RSS after the bombs', value: after.rss, unit: 'MB' },
  ];
  const report = {
    name: 'upload-bomb',
    date: new Date().toISOString(),
    environment: {
      ...environment(),
      database: 'sqlite (WAL, synchronous=FULL)',
      service: 'src/server.ts as npm start runs it (WORKERS=1, default extraction limits)',
      bomb: `${bomb.length} bytes, content stream inflating to 110 MB`,
      connections: CONNECTIONS,
      seconds: SECONDS,
    },
    results,
  };
  await writeReport(report);
  console.log(markdown(report));
  const met = loaded.latency.p99 < 100 && loaded.errors + loaded.non2xx === 0;
  console.log(
    `target p99 of GET /clients/{id} < 100 ms while four bombs upload: ${met ? 'MET' : 'NOT MET'} (p99 ${loaded.latency.p99} ms, peak RSS ${after.peak} MB)`,
  );
} finally {
  await api.stop();
}
