/**
 * PDF rendering: wall time of renderDocumentPdf for a booked 10-line and 100-line invoice
 * (layout, font subsetting, Factur-X XML and embedding). Pure CPU; no database involved.
 * Run: npx tsx bench/pdf.bench.ts
 */
import { renderDocumentPdf } from '../src/shared/pdf/render.js';
import { sampleDocument } from '../src/shared/pdf/sample.js';
import { type BenchReport, environment, type Metric, markdown, writeReport } from './lib.js';

const RUNS = 50;

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

async function main() {
  const results: Metric[] = [];

  // The first render of a process parses the font files' layout tables once.
  let t = performance.now();
  await renderDocumentPdf(sampleDocument({ lines: 1 }));
  results.push({
    metric: 'first render (cold)',
    value: round(performance.now() - t),
    unit: 'ms',
    note: '1 line',
  });

  for (const lines of [10, 100]) {
    const doc = sampleDocument({ lines, language: 'de' });
    await renderDocumentPdf(doc); // warm-up for this size
    const times: number[] = [];
    let bytes = 0;
    const cpu = process.cpuUsage();
    for (let i = 0; i < RUNS; i++) {
      t = performance.now();
      const buf = await renderDocumentPdf(doc);
      times.push(performance.now() - t);
      bytes = buf.length;
    }
    const cpuMs = process.cpuUsage(cpu).user / 1000 / RUNS;
    times.sort((a, b) => a - b);
    const note = `${RUNS} renders, ${Math.round(bytes / 1024)} KiB`;
    results.push({
      metric: `render ${lines} lines p50`,
      value: round(percentile(times, 50)),
      unit: 'ms',
      note,
    });
    results.push({
      metric: `render ${lines} lines p99`,
      value: round(percentile(times, 99)),
      unit: 'ms',
      note,
    });
    // Wall time suffers on a shared machine; CPU time per render is the steadier number.
    results.push({ metric: `render ${lines} lines cpu mean`, value: round(cpuMs), unit: 'ms', note });
  }

  const report: BenchReport = {
    name: 'pdf',
    date: new Date().toISOString(),
    environment: environment(),
    results,
  };
  console.log(markdown(report));
  await writeReport(report);
}

await main();
