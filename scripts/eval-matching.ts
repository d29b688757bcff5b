// `npm run eval:matching [-- --dev | --seen | --held-out] [--invoices N] [--incoming N]`: drives the
// real statement import and matching (HTTP through app.inject, SQLite in memory) over
// generated months (eval/matching/generate.ts) of money received for outgoing invoices and
// paid out for incoming ones, and scores them, money in and money out apart and together:
// automatic matches that are wrong (target 0), the share of certain lines matched
// automatically (target ≥ 95 %), and how often the first suggestion of a line left unmatched
// is right. Held-out seeds first (matching was never tuned on them), then the seeds once held
// out and since looked at ("seen"), then the dev seeds.
import type { FastifyInstance } from 'fastify';
import {
  type BookedInvoice,
  DEV_SEEDS,
  HELD_OUT_SEEDS,
  type PlannedLine,
  planClients,
  planIncoming,
  planInvoices,
  planMonth,
  planPayouts,
  planSuppliers,
  SEEN_SEEDS,
  type StoredIncoming,
} from '../eval/matching/generate.js';
import { iban, Rng } from '../eval/random.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { importData } from '../src/import/index.js';
import { createIntegration } from '../src/modules/integration/integration.service.js';
import { camt, type GenStatement, mt940 } from '../test/bank.fixtures.js';

const args = process.argv.slice(2);
const INVOICES = Number(args[args.indexOf('--invoices') + 1]) || 300;
const INCOMING = Number(args[args.indexOf('--incoming') + 1]) || 120;
const sets: [string, number[]][] = [
  ['held-out', HELD_OUT_SEEDS],
  ['seen', SEEN_SEEDS],
  ['dev', DEV_SEEDS],
].filter(
  ([name]) => !['--dev', '--seen', '--held-out'].some((a) => args.includes(a)) || args.includes(`--${name}`),
) as [string, number[]][];

const SCOPES = [
  'client:read',
  'client:write',
  'outgoing-invoice:read',
  'outgoing-invoice:write',
  'outgoing-invoice:book',
  'payments:read',
  'payments:write',
  'banking:read',
  'banking:write',
  'incoming-invoice:read',
  'incoming-invoice:write',
];

/** Money in (outgoing invoices) and money out (incoming invoices), scored apart and together. */
const DIRECTIONS = ['in', 'out', 'all'] as const;
type Direction = (typeof DIRECTIONS)[number];
type Scores = Record<Direction, Score>;

/** The file formats of the four weekly statements; rotated by seed. */
const FORMATS = ['camt053-08', 'mt940-german', 'camt053-02', 'mt940-dutch'] as const;

interface Score {
  lines: number;
  paying: number;
  certain: number;
  certainAuto: number;
  payingAuto: number;
  wrongAuto: number;
  unmatchedWithTruth: number;
  firstRight: number;
  noneLines: number;
  byKind: Map<string, { n: number; auto: number; wrong: number }>;
  wrongExamples: string[];
  missedExamples: string[];
}

const newScore = (): Score => ({
  lines: 0,
  paying: 0,
  certain: 0,
  certainAuto: 0,
  payingAuto: 0,
  wrongAuto: 0,
  unmatchedWithTruth: 0,
  firstRight: 0,
  noneLines: 0,
  byKind: new Map(),
  wrongExamples: [],
  missedExamples: [],
});

async function call(
  app: FastifyInstance,
  token: string,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${token}`, ...headers },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  const json = res.body ? JSON.parse(res.body) : null;
  if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return json;
}

function statementFile(format: (typeof FORMATS)[number], s: GenStatement): { name: string; data: string } {
  if (format.startsWith('camt'))
    return {
      name: `${s.id}.xml`,
      data: camt('053', s, format === 'camt053-02' ? { version: '02', splitUstrd: true } : { version: '08' }),
    };
  // Dutch MT940 has no field for a structured reference: the payer's bank puts it in the text.
  const entries =
    format === 'mt940-dutch'
      ? s.entries.map((e) => (e.creditorRef ? { ...e, text: e.creditorRef, creditorRef: undefined } : e))
      : s.entries;
  return {
    name: `${s.id}.sta`,
    data: mt940([{ ...s, entries }], { dialect: format === 'mt940-dutch' ? 'dutch' : 'german' }),
  };
}

async function multipart(name: string, data: string) {
  const form = new FormData();
  form.append('file', new Blob([data], { type: 'application/octet-stream' }), name);
  const res = new Response(form);
  return { body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type')! };
}

const cents = (v: number | string) => Math.round(Number(v) * 100);
const same = (a: { invoice_id: number; amount: number }[], b: { invoice_id: number; amount: number }[]) =>
  a.length === b.length &&
  [...a]
    .sort((x, y) => x.invoice_id - y.invoice_id)
    .every((x, i) => {
      const y = [...b].sort((p, q) => p.invoice_id - q.invoice_id)[i]!;
      return x.invoice_id === y.invoice_id && x.amount === y.amount;
    });

async function runSeed(
  app: FastifyInstance,
  db: ReturnType<typeof createDb>['db'],
  seed: number,
  score: Scores,
) {
  const r = new Rng(seed);
  const ownIban = iban('DE', `12030000${String(seed).padStart(10, '0')}`);
  const planned = planClients(r, 40);
  const { account_id } = await importData(db, {
    account: {
      name: `Eval ${seed}`,
      country_code: 'DE',
      settings: {
        street: 'Teststraße 1',
        zip: '10115',
        city: 'Berlin',
        vat_id: 'DE123456789',
        iban: ownIban,
      },
    },
    users: [
      { key: 'u', email: `eval${seed}@eval.example`, first_name: 'E', last_name: 'Val', role: 'admin' },
    ],
    clients: planned.map((c) => ({
      key: c.key,
      name: c.name,
      street: 'Hauptstraße 1',
      zip: '10115',
      city: 'Berlin',
      country_code: 'DE',
    })),
  });
  const clientIds = (
    await db.selectFrom('clients').select('id').where('account_id', '=', account_id).orderBy('id').execute()
  ).map((c) => c.id);
  const user = await db
    .selectFrom('users')
    .select('id')
    .where('account_id', '=', account_id)
    .executeTakeFirstOrThrow();
  const { access_token: token } = await createIntegration(db, {
    name: 'eval',
    scopes: SCOPES,
    userId: user.id,
  });
  await call(app, token, 'POST', '/payment-accounts', { name: 'Geschäftskonto', iban: ownIban });

  const invoices: BookedInvoice[] = [];
  for (const p of planInvoices(r, planned, INVOICES)) {
    const draft = await call(app, token, 'POST', '/outgoing-invoices', {
      client_id: clientIds[p.client],
      service_period_start: '2026-10-01',
      service_period_end: '2026-10-31',
      line_items: [{ title: 'Leistung', quantity: 1, unit_price: p.net / 100, tax_rate: 19 }],
    });
    const booked = (await call(app, token, 'POST', `/outgoing-invoices/${draft.data.id}/book`, {})).data;
    invoices.push({
      id: booked.id,
      number: booked.invoice_number,
      client: p.client,
      gross: cents(booked.gross_total),
    });
  }

  const weeks = planMonth(r, planned, invoices, ownIban);
  // Suppliers and their invoices, drawn after the money in so its months stay as they were.
  const suppliers = planSuppliers(r, 14);
  const supplierIds: number[] = [];
  for (const sp of suppliers)
    supplierIds.push(
      (await call(app, token, 'POST', '/suppliers', { name: sp.name, iban: sp.onRecord ? sp.iban : null }))
        .data.id,
    );
  const incoming: StoredIncoming[] = [];
  for (const p of planIncoming(r, suppliers, INCOMING)) {
    const created = await call(app, token, 'POST', '/incoming-invoices', {
      supplier_id: supplierIds[p.supplier],
      invoice_number: p.number,
      gross_total: p.gross / 100,
      date: '2026-10-20',
      ...(p.printsIban ? { iban: suppliers[p.supplier]!.iban } : {}),
    });
    incoming.push({ ...p, id: created.data.id });
  }
  for (const [w, lines] of planPayouts(r, suppliers, incoming).entries()) weeks[w]!.push(...lines);
  for (const week of weeks) week.sort((a, b) => a.entry.booking.localeCompare(b.entry.booking));
  let balance = 1_000_000;
  for (const [w, lines] of weeks.entries()) {
    const s: GenStatement = {
      iban: ownIban,
      id: `E${seed}W${w}`,
      opening: balance,
      from: lines[0]?.entry.booking ?? '2026-11-02',
      to: lines.at(-1)?.entry.booking ?? '2026-11-02',
      entries: lines.map((l) => l.entry),
    };
    balance += lines.reduce((n, l) => n + l.entry.amount, 0);
    const file = statementFile(FORMATS[(seed + w) % FORMATS.length]!, s);
    const { body, type } = await multipart(file.name, file.data);
    const statement = (await call(app, token, 'POST', '/bank-statements', body, { 'content-type': type }))
      .data;
    const txs: Tx[] = [];
    for (let page = 1; ; page++) {
      const got = await call(
        app,
        token,
        'GET',
        `/bank-transactions?statement_id=${statement.id}&per_page=100&page=${page}`,
      );
      txs.push(...got.data);
      if (got.data.length < 100) break;
    }
    const byRef = new Map(lines.map((l) => [l.entry.ref!, l]));
    for (const t of txs) {
      const line = byRef.get(t.bank_reference ?? '');
      if (!line) throw new Error(`no truth for line ${t.bank_reference}`);
      await scoreLine(app, token, t, line, score);
    }
  }
}

/** What the evaluation reads of a bank transaction. */
interface Tx {
  id: number;
  status: string;
  amount: number;
  bank_reference: string | null;
  remittance: string | null;
  creditor_reference: string | null;
  matches: { invoice_id: number; amount: number; origin: string; invoice_kind: string }[];
  suggestions: { invoice_id: number }[];
}

async function scoreLine(app: FastifyInstance, token: string, t: Tx, line: PlannedLine, scores: Scores) {
  const { truth } = line;
  const direction = line.entry.amount < 0 ? 'out' : 'in';
  // Money in pays outgoing invoices, money out incoming ones: another kind is wrong.
  const kindOf = direction === 'in' ? 'outgoing' : 'incoming';
  const auto = t.matches
    .filter((m) => m.origin === 'auto')
    .map((m) => ({ invoice_id: m.invoice_kind === kindOf ? m.invoice_id : -1, amount: cents(m.amount) }));
  const isAuto = t.status === 'matched' && auto.length > 0;
  for (const score of [scores[direction], scores.all]) {
    const kind = score.byKind.get(truth.kind) ?? { n: 0, auto: 0, wrong: 0 };
    score.byKind.set(truth.kind, kind);
    kind.n++;
    score.lines++;
    if (truth.pays.length === 0) score.noneLines++;
    else score.paying++;
    if (truth.certain) score.certain++;
    if (isAuto) {
      kind.auto++;
      if (same(auto, truth.pays)) {
        score.payingAuto++;
        if (truth.certain) score.certainAuto++;
      } else {
        score.wrongAuto++;
        kind.wrong++;
        score.wrongExamples.push(
          `${truth.kind}: "${t.remittance ?? t.creditor_reference}" ${t.amount} → ${JSON.stringify(auto)}, truth ${JSON.stringify(truth.pays)}`,
        );
      }
      continue;
    }
    if (truth.pays.length === 0) continue;
    if (truth.certain)
      score.missedExamples.push(`${truth.kind}: "${t.remittance ?? t.creditor_reference}" ${t.amount}`);
    score.unmatchedWithTruth++;
    const first = t.suggestions?.[0];
    if (first && truth.pays.some((p) => p.invoice_id === first.invoice_id)) score.firstRight++;
  }
  if (isAuto) return;
  if (truth.pays.length === 0) return;
  // The bookkeeper matches it by hand, as in real life: later lines from this IBAN then know the client.
  await call(app, token, 'POST', `/bank-transactions/${t.id}/match`, {
    allocations: truth.pays.map((p) => ({ invoice_id: p.invoice_id, amount: p.amount / 100 })),
  });
}

const pct = (a: number, b: number) => (b === 0 ? '–' : `${((100 * a) / b).toFixed(1)} %`);

const config = loadConfig({ RUN_WORKER: 'false', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0' });
const handle = createDb({ kind: 'sqlite', file: ':memory:' });
await migrateToLatest(handle.db);
const app = await buildApp(config, { db: handle, logger: false });
await app.ready();
const rows: string[] = [];
const kinds: string[] = [];
let failed = false;
const LABEL: Record<Direction, string> = { in: 'money in', out: 'money out', all: 'together' };
for (const [name, seeds] of sets) {
  const scores = { in: newScore(), out: newScore(), all: newScore() };
  const started = Date.now();
  for (const seed of seeds) await runSeed(app, handle.db, seed, scores);
  for (const direction of DIRECTIONS) {
    const score = scores[direction];
    const label = `${name}, ${LABEL[direction]}`;
    rows.push(
      `| ${label} (seeds ${seeds.join(', ')}) | ${score.lines} | ${score.paying} | ${score.wrongAuto} | ${pct(score.certainAuto, score.certain)} (${score.certainAuto}/${score.certain}) | ${pct(score.payingAuto, score.paying)} | ${pct(score.firstRight, score.unmatchedWithTruth)} (${score.firstRight}/${score.unmatchedWithTruth}) |`,
    );
    if (direction === 'all') {
      kinds.push(
        `${name}: ${[...score.byKind]
          .sort()
          .map(([k, v]) => `${k} ${v.auto}/${v.n}${v.wrong ? ` (${v.wrong} wrong)` : ''}`)
          .join(', ')}`,
      );
      continue;
    }
    for (const w of score.wrongExamples.slice(0, 10)) console.error(`wrong (${label}): ${w}`);
    for (const w of score.missedExamples.slice(0, 10)) console.error(`certain, not matched (${label}): ${w}`);
    if (score.wrongAuto > 0 || score.certainAuto < 0.95 * score.certain) failed = true;
  }
  console.error(`${name}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
await app.close();
await handle.destroy();
console.log(
  [
    `${INVOICES} outgoing and ${INCOMING} incoming invoices a month and seed, four weekly statements (CAMT.053 v08 and v02, MT940 German and Dutch)`,
    '',
    '| seeds | lines | paying invoices | wrong automatic matches | certain lines matched automatically | paying lines matched automatically | first suggestion right (lines left unmatched) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    'Matched automatically per kind of line (automatic/all; `out:` money paid out, `in:supplierCredit` a supplier paying back):',
    '',
    ...kinds.map((k) => `- ${k}`),
  ].join('\n'),
);
if (failed) process.exitCode = 1;
