import { setImmediate as nextTurn } from 'node:timers/promises';
import type { MailConfig } from '../../config.js';
import { isUniqueViolation } from '../../db/faults.js';
import { type Db, isPostgres } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError, type FieldError, notFound } from '../../shared/errors.js';
import { recordEvents } from '../../shared/events.js';
import { centsToString, exactDecimal, fromCents, toCents } from '../../shared/money.js';
import { type Page, pageOf } from '../../shared/paging.js';
import { formatterFor } from '../../shared/pdf/format.js';
import { renderLetterPdf } from '../../shared/pdf/letter.js';
import { nowIso, todayIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import { type AuditEvent, recordAudit, recordAudits } from '../audit/audit.service.js';
import { createInvoice } from '../outgoing-invoices/invoices.service.js';
import {
  asDownload,
  documentParties,
  findInvoice,
  invoiceStates,
  keepDocument,
  keptDocument,
  type PdfBytes,
  touchInvoices,
} from '../outgoing-invoices/outgoing-invoices.public.js';
import {
  DEFAULT_LEVELS,
  fill,
  type Language,
  type Level,
  letterAmounts,
  nextLevel,
  type PastLetter,
  unknownPlaceholder,
} from './dunning.domain.js';
import { letterTitle, letterToPdf } from './dunning.pdf.js';
import { type OverdueInvoice, overdueInvoices, reductionsOf } from './dunning.read-model.js';
import type { LetterRow } from './dunning.repository.js';
import * as repo from './dunning.repository.js';
import type {
  BaseRate,
  Letter,
  LetterListQuery,
  LetterPreview,
  Levels,
  LevelsBody,
  NumberSeries,
  RunBody,
  RunResult,
} from './dunning.schemas.js';
import {
  type BaseRate as DomainBaseRate,
  type InterestPeriod,
  isHalfYearStart,
  mergeBaseRates,
  NoBaseRate,
  type Reduction,
} from './interest.domain.js';
import { queueLetter } from './send.service.js';

/** Who acts: a token through the API, or the scheduled run (no token). */
export type Actor = AuthContext | null;

/** An audit entry in the transaction of the change. */
function audit(
  db: Db,
  accountId: number,
  actor: Actor,
  action: string,
  targetId: number | string | null,
  detail: Record<string, unknown> = {},
) {
  return recordAudit(db, auditEntry(accountId, actor, action, targetId, detail));
}

function auditEntry(
  accountId: number,
  actor: Actor,
  action: string,
  targetId: number | string | null,
  detail: Record<string, unknown> = {},
): AuditEvent {
  return {
    accountId,
    actorUserId: actor?.userId ?? null,
    // The scheduled run is the service's own, as the command line is.
    actorKind: actor ? 'token' : 'cli',
    action,
    targetType: 'dunning',
    targetId,
    detail: actor ? { integration_id: actor.integrationId, ...detail } : { scheduled: true, ...detail },
  };
}

// ---------------------------------------------------------------------------------------------
// Levels

async function levelsOf(db: Db, accountId: number): Promise<{ levels: Level[]; updated_at: string | null }> {
  const row = await repo.findSettings(db, accountId);
  return row
    ? { levels: JSON.parse(row.levels) as Level[], updated_at: row.updated_at }
    : { levels: DEFAULT_LEVELS as Level[], updated_at: null };
}

const toLevels = (s: { levels: Level[]; updated_at: string | null }): Levels => ({
  levels: s.levels.map((l, i) => ({ level: i + 1, ...l, fee: fromCents(l.fee) })),
  updated_at: s.updated_at,
});

export async function getLevels(db: Db, auth: AuthContext): Promise<Levels> {
  return toLevels(await levelsOf(db, auth.accountId));
}

/** PUT /dunning/levels: replaces the whole list; texts may hold only the known placeholders. */
export async function putLevels(db: Db, auth: AuthContext, body: LevelsBody): Promise<Levels> {
  const errors: FieldError[] = [];
  body.levels.forEach((l, i) => {
    for (const lang of ['de', 'en'] as const) {
      for (const part of ['subject', 'body'] as const) {
        const bad = unknownPlaceholder(l.texts[lang][part]);
        if (bad)
          errors.push({
            field: `levels.${i}.texts.${lang}.${part}`,
            message: `unknown placeholder {${bad}}`,
          });
      }
    }
  });
  if (errors.length) throw new AppError('validation_failed', errors[0]!.message, { errors });
  const levels: Level[] = body.levels.map((l) => ({
    days_after_due: l.days_after_due,
    fee: toCents(l.fee)!,
    charge_interest: l.charge_interest,
    flat_fee: l.flat_fee,
    delivery: l.delivery,
    texts: { de: { ...l.texts.de }, en: { ...l.texts.en } },
  }));
  const now = nowIso();
  await transact(db, async (trx) => {
    await repo.saveSettings(trx, auth.accountId, JSON.stringify(levels), now);
    await audit(trx, auth.accountId, auth, 'dunning.levels_update', null, { levels: levels.length });
  });
  return toLevels({ levels, updated_at: now });
}

// ---------------------------------------------------------------------------------------------
// Base rates

async function baseRatesOf(db: Db, accountId: number) {
  return mergeBaseRates(await repo.ownBaseRates(db, accountId));
}

const toBaseRate = (r: DomainBaseRate & { source: 'shipped' | 'account' }): BaseRate => ({
  valid_from: r.valid_from,
  rate: Number(r.rate),
  source: r.source,
});

export async function listBaseRates(db: Db, auth: AuthContext): Promise<BaseRate[]> {
  return (await baseRatesOf(db, auth.accountId)).map(toBaseRate);
}

export async function putBaseRate(
  db: Db,
  auth: AuthContext,
  validFrom: string,
  rate: number,
): Promise<BaseRate> {
  if (!isHalfYearStart(validFrom) || validFrom < '2002-01-01') {
    throw new AppError('validation_failed', 'A base rate starts on a 1 January or 1 July from 2002 on', {
      errors: [{ field: 'valid_from', message: 'must be a 1 January or 1 July from 2002 on' }],
    });
  }
  const text = exactDecimal(rate, 2)!;
  await transact(db, async (trx) => {
    await repo.saveBaseRate(trx, auth.accountId, validFrom, text, nowIso());
    await audit(trx, auth.accountId, auth, 'dunning.base_rate_set', validFrom, { rate: text });
  });
  return { valid_from: validFrom, rate: Number(text), source: 'account' };
}

// ---------------------------------------------------------------------------------------------
// Letters

const languageOf = (clientLanguage: string | null | undefined): Language =>
  clientLanguage === 'de' ? 'de' : 'en';

const periodToWire = (p: InterestPeriod) => ({
  from: p.from,
  to: p.to,
  days: p.days,
  open_amount: fromCents(p.open_cents),
  base_rate: Number(p.base_rate),
  rate: Number(p.rate),
  amount: fromCents(p.cents),
  exact_amount: p.exact,
});

export function toLetter(r: LetterRow): Letter {
  return {
    id: r.id,
    number: r.number,
    invoice_id: r.invoice_id,
    client_id: r.client_id,
    level: r.level,
    date: r.date,
    currency: r.currency,
    language: languageOf(r.language),
    open_amount: fromCents(r.open_amount),
    fee: fromCents(r.fee),
    flat_fee: fromCents(r.flat_fee),
    interest: fromCents(r.interest),
    interest_breakdown: (JSON.parse(r.interest_breakdown) as InterestPeriod[]).map(periodToWire),
    total_due: fromCents(r.total_due),
    subject: r.subject,
    body: r.body,
    delivery: r.delivery as Letter['delivery'],
    status: r.status as Letter['status'],
    sent_at: r.sent_at,
    cancelled_at: r.cancelled_at,
    settled_at: r.settled_at,
    charges_invoice_id: r.charges_invoice_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export const listLetters = (db: Db, auth: AuthContext, q: LetterListQuery): Promise<Page<LetterRow>> =>
  repo.listLetters(db, auth.accountId, q);

export async function getLetter(
  db: Db,
  auth: Pick<AuthContext, 'accountId'>,
  id: number,
): Promise<LetterRow> {
  const row = await repo.findLetter(db, auth.accountId, id);
  if (!row) throw notFound('Dunning letter');
  return row;
}

/** POST /dunnings/{id}/cancel: an open or sent letter is withdrawn; its level is not made again. */
export async function cancelLetter(db: Db, auth: AuthContext, id: number): Promise<LetterRow> {
  return transact(db, async (trx) => {
    const row = await getLetter(trx, auth, id);
    if (row.status === 'cancelled') return row;
    if (row.status === 'settled') throw new AppError('conflict', 'A settled letter cannot be cancelled');
    const now = nowIso();
    const cancelled = (await repo.updateLetter(trx, auth.accountId, id, {
      status: 'cancelled',
      cancelled_at: now,
      updated_at: now,
    }))!;
    // The invoice answers its letters and dunning level: it changed too.
    await touchInvoices(trx, auth.accountId, [row.invoice_id], now);
    await audit(trx, auth.accountId, auth, 'dunning.cancel', id, { number: row.number });
    return cancelled;
  });
}

const CHARGE_TEXTS = {
  de: {
    title: (number: string) => `Mahngebühren und Verzugszinsen zu ${number}`,
    fee: (title: string) => `Mahngebühr (${title})`,
    flatFee: 'Verzugspauschale (§ 288 Abs. 5 BGB)',
    interest: (from: string, to: string) => `Verzugszinsen (§ 288 BGB) vom ${from} bis ${to}`,
  },
  en: {
    title: (number: string) => `Dunning fees and default interest of ${number}`,
    fee: (title: string) => `Dunning fee (${title})`,
    flatFee: 'Default lump sum (§ 288 (5) BGB)',
    interest: (from: string, to: string) => `Default interest (§ 288 BGB) from ${from} to ${to}`,
  },
};

/**
 * POST /dunnings/{id}/invoice-charges: the letter's fee, lump sum and interest as an invoice of
 * their own, without VAT (damages for default are not a supply: category O), open for booking.
 * Once per letter: the letter keeps the invoice's id, set only where none is set yet, in the
 * invoice's transaction.
 */
export async function invoiceCharges(db: Db, auth: AuthContext, id: number) {
  return transact(db, async (trx) => {
    const row = await getLetter(trx, auth, id);
    if (row.charges_invoice_id !== null)
      throw new AppError('conflict', `The letter's charges are on invoice ${row.charges_invoice_id} already`);
    if (row.status === 'cancelled') throw new AppError('conflict', 'A cancelled letter claims nothing');
    const language = languageOf(row.language);
    const t = CHARGE_TEXTS[language];
    const f = formatterFor({ language, currency: row.currency });
    const periods = JSON.parse(row.interest_breakdown) as InterestPeriod[];
    const line = (title: string, cents: number | string) => ({
      title,
      quantity: 1,
      unit_price: fromCents(cents),
      tax_rate: 0,
    });
    const lines = [];
    if (Number(row.fee) > 0) lines.push(line(t.fee(letterTitle(language, row.level)), row.fee));
    if (Number(row.flat_fee) > 0) lines.push(line(t.flatFee, row.flat_fee));
    if (Number(row.interest) > 0 && periods.length)
      lines.push(line(t.interest(f.date(periods[0]!.from), f.date(periods.at(-1)!.to)), row.interest));
    if (!lines.length) throw new AppError('conflict', 'The letter claims no fee and no interest');
    const invoice = await createInvoice(trx, auth, {
      client_id: row.client_id,
      currency: row.currency,
      title: t.title(row.number),
      tax_exemption_category: 'O',
      line_items: lines,
    });
    const marked = await repo.markCharged(trx, auth.accountId, id, invoice.id, nowIso());
    if (!marked) throw new AppError('conflict', 'The letter’s charges were invoiced meanwhile');
    await audit(trx, auth.accountId, auth, 'dunning.invoice_charges', id, { invoice_id: invoice.id });
    return invoice;
  });
}

/**
 * GET /dunnings/{id}/pdf: rendered from the letter's stored texts and amounts at its first
 * request, then kept, so every later download is the same bytes (the letter as it was sent).
 */
export async function letterPdf(db: Db, auth: Pick<AuthContext, 'accountId'>, id: number): Promise<PdfBytes> {
  const key = { kind: 'dunning_letter', id, format: 'pdf' } as const;
  const kept = await keptDocument(db, auth.accountId, key);
  if (kept) return kept;
  const row = await getLetter(db, auth, id);
  const [invoice, parties] = await Promise.all([
    findInvoice(db, auth.accountId, row.invoice_id),
    documentParties(db, auth.accountId, { client_id: row.client_id, contact_id: null }),
  ]);
  const data = await renderLetterPdf(
    letterToPdf(row, invoice ?? { invoice_number: null, date: null, due_date: null }, parties),
  );
  return keepDocument(db, auth.accountId, key, asDownload(data, `${row.number}.pdf`), 'application/pdf');
}

/**
 * GET /dunning/number-series: each year's letter numbers with the evidence an auditor asks for,
 * as the invoices' number series: every number 1 … last is held by a letter.
 */
export async function listNumberSeries(
  db: Db,
  auth: AuthContext,
  q: { page?: number; per_page?: number },
): Promise<Page<NumberSeries>> {
  const [counters, numbers] = await Promise.all([
    repo.letterCounters(db, auth.accountId),
    repo.letterNumbers(db, auth.accountId),
  ]);
  const held = new Set(numbers.map((n) => n.number));
  const all = counters.map((c): NumberSeries => {
    const year = Number(c.year);
    const last = Number(c.last_value);
    const gaps: NumberSeries['gaps'] = [];
    let count = 0;
    for (let seq = 1; seq <= last; seq++) {
      const number = letterNumber(year, seq);
      if (held.has(number)) count++;
      else gaps.push({ sequence: seq, number });
    }
    return {
      year,
      format: 'MA-{YYYY}-{NNNNN}',
      prefix: `MA-${year}-`,
      last_sequence: last,
      last_number: last > 0 ? letterNumber(year, last) : null,
      letter_count: count,
      gap_free: gaps.length === 0,
      gaps,
    };
  });
  const { page, per_page } = pageOf(q);
  return { rows: all.slice((page - 1) * per_page, page * per_page), total: all.length, page, per_page };
}

// ---------------------------------------------------------------------------------------------
// The run

/** The letter number: `MA-{YYYY}-{NNNNN}`, its own series per year. */
export const letterNumber = (year: number, seq: number) => `MA-${year}-${String(seq).padStart(5, '0')}`;

const pastOf = (rows: readonly LetterRow[]): PastLetter[] =>
  rows.map((l) => ({
    level: l.level,
    date: l.date,
    flat_fee: Number(l.flat_fee),
    status: l.status as PastLetter['status'],
  }));

interface Planned {
  invoice: OverdueInvoice;
  levelNumber: number;
  level: Level;
  preview: LetterPreview;
  breakdown: InterestPeriod[];
}

/** What a letter says: the level's texts in the client's language, placeholders filled in. */
function texts(
  level: Level,
  language: Language,
  v: {
    number: string;
    date: string;
    invoice: OverdueInvoice;
    currency: string;
    amounts: { open_amount: number; fee: number; flat_fee: number; interest: number; total_due: number };
    company: string;
  },
) {
  const f = formatterFor({ language, currency: v.currency });
  const money = (cents: number) => f.money(centsToString(cents));
  const values = {
    letter_number: v.number,
    letter_date: f.date(v.date),
    invoice_number: v.invoice.invoice_number ?? '',
    invoice_date: f.date(v.invoice.date),
    due_date: f.date(v.invoice.due_date),
    open_amount: money(v.amounts.open_amount),
    fee: money(v.amounts.fee),
    flat_fee: money(v.amounts.flat_fee),
    interest: money(v.amounts.interest),
    total_due: money(v.amounts.total_due),
    client_name: v.invoice.client_name ?? '',
    company_name: v.company,
  };
  const t = level.texts[language];
  return { subject: fill(t.subject, values), body: fill(t.body, values) };
}

/**
 * A dunning run on `date`: for each overdue invoice that is still open, the next level whose
 * time has come, one letter each; the open and sent letters of invoices that are paid become
 * `settled`. The letters are written a batch a transaction (`writeLetters`): under the year's
 * counter lock a batch leaves out what a concurrent run made meanwhile, and the unique
 * (invoice, level) stops any copy that slipped past it.
 */
export async function runDunning(
  db: Db,
  accountId: number,
  opts: { date: string; dryRun: boolean; actor?: Actor; mail?: MailConfig | null },
): Promise<RunResult> {
  const { date, dryRun } = opts;
  const actor = opts.actor ?? null;
  const [{ levels }, rates, candidates, parties] = await Promise.all([
    levelsOf(db, accountId),
    baseRatesOf(db, accountId),
    overdueInvoices(db, accountId, date),
    documentParties(db, accountId, { client_id: null, contact_id: null }),
  ]);
  const ids = candidates.map((c) => c.id);
  // Every candidate's open amount as the invoice answers it, read a thousand at a time.
  const [letters, payments, states] = await Promise.all([
    repo.lettersOf(db, accountId, ids),
    reductionsOf(db, accountId, ids),
    invoiceStates(db, accountId, ids),
  ]);
  const lettersBy = group(letters, (l) => l.invoice_id);
  const paymentsBy = group(payments, (p) => p.invoice_id);

  const planned: Planned[] = [];
  const toSettle: number[] = [];
  const settledInvoices: number[] = [];
  for (const [n, invoice] of candidates.entries()) {
    // SQLite answers without leaving the event loop: let other requests in now and then.
    if (n % 250 === 249) await nextTurn();
    const past = lettersBy.get(invoice.id) ?? [];
    const state = states.get(invoice.id);
    if (!state) continue;
    if (state.payment.open <= 0) {
      for (const l of past) if (l.status === 'open' || l.status === 'sent') toSettle.push(l.id);
      if (past.some((l) => l.status === 'open' || l.status === 'sent')) settledInvoices.push(invoice.id);
      continue;
    }
    const levelNumber = nextLevel(levels, invoice.due_date, pastOf(past), date);
    if (levelNumber === null) continue;
    const level = levels[levelNumber - 1]!;
    const reductions: Reduction[] = (paymentsBy.get(invoice.id) ?? []).map((p) => ({
      date: p.date,
      cents: Number(p.amount),
    }));
    let amounts: ReturnType<typeof letterAmounts>;
    try {
      amounts = letterAmounts({
        level,
        date,
        dueDate: invoice.due_date,
        amountCents: state.totals.gross,
        reductions,
        consumer: Boolean(invoice.is_consumer),
        currency: invoice.currency,
        letters: pastOf(past),
        baseRates: rates,
      });
    } catch (err) {
      // A due date before the table's first rate (2002): such an invoice is not dunned.
      if (err instanceof NoBaseRate) continue;
      throw err;
    }
    if (amounts.open_amount <= 0) continue;
    const language = languageOf(invoice.language);
    const preview: LetterPreview = {
      invoice_id: invoice.id,
      client_id: invoice.client_id,
      level: levelNumber,
      date,
      currency: invoice.currency,
      language,
      open_amount: fromCents(amounts.open_amount),
      fee: fromCents(amounts.fee),
      flat_fee: fromCents(amounts.flat_fee),
      interest: fromCents(amounts.interest),
      interest_breakdown: amounts.interest_breakdown.map(periodToWire),
      total_due: fromCents(amounts.total_due),
      delivery: level.delivery,
      // A real run fills the texts in when the letter has its number (writeLetters).
      ...(dryRun
        ? texts(level, language, {
            number: '',
            date,
            invoice,
            currency: invoice.currency,
            amounts,
            company: parties.seller.name,
          })
        : { subject: '', body: '' }),
    };
    planned.push({ invoice, levelNumber, level, preview, breakdown: amounts.interest_breakdown });
  }

  if (dryRun)
    return { date, dry_run: true, created: [], would_create: planned.map((p) => p.preview), settled: 0 };

  const now = nowIso();
  await transact(db, async (trx) => {
    await repo.settleLetters(trx, accountId, toSettle, now);
    await touchInvoices(trx, accountId, settledInvoices, now);
  });
  const created: Letter[] = [];
  const perTransaction = lettersPerTransaction(db);
  for (let i = 0; i < planned.length; i += perTransaction) {
    const batch = planned.slice(i, i + perTransaction);
    const send = { mail: opts.mail ?? null, levels };
    // A unique key hit (a letter made by a path that took no counter lock) fails the batch
    // alone: written again, it leaves that letter out.
    const rows = await writeLetters(db, accountId, batch, parties.seller.name, actor, send).catch((err) => {
      if (isUniqueViolation(err)) return writeLetters(db, accountId, batch, parties.seller.name, actor, send);
      throw err;
    });
    for (const row of rows) created.push(toLetter(row));
    await nextTurn();
  }
  // Thousands of new letters leave the table's statistics behind at once (autovacuum comes a
  // minute later, or never when it is off): the invoices' reads of their letters are planned
  // for the real size from now on, as the import does after its bulk load.
  if (created.length >= ANALYZE_AFTER) await repo.analyzeLetters(db);
  return { date, dry_run: false, created, would_create: [], settled: toSettle.length };
}

/** Letters one run makes before it refreshes the table's statistics. */
const ANALYZE_AFTER = 1000;

/**
 * Letters written in one transaction: numbers taken and rows inserted a batch at a time.
 * PostgreSQL takes 500: each transaction's fixed part (the counter's lock and update, the read
 * of the batch's letters, the commit) was a fifth of a run's writing at 100, and readers do not
 * wait for its locks. SQLite keeps 100: its transaction holds the event loop, and other
 * requests wait for it.
 */
export const lettersPerTransaction = (db: Db) => (isPostgres(db) ? 500 : 100);

/**
 * A batch of letters in one transaction: the year's counter is locked first, then the letters
 * the invoices have now are read, so a level another run made meanwhile is left out; the rest
 * take the next numbers in order and are inserted set-wise with their events and audit entries.
 * Of two runs at once the second waits for the first's counter lock and then finds its letters:
 * each letter is made once, and the numbers have no gaps (a rolled-back batch hands its numbers
 * back with its rows).
 */
function writeLetters(
  db: Db,
  accountId: number,
  batch: readonly Planned[],
  company: string,
  actor: Actor,
  send: { mail: MailConfig | null; levels: readonly Level[] },
): Promise<LetterRow[]> {
  return transact(db, async (trx) => {
    const year = Number(batch[0]!.preview.date.slice(0, 4));
    let seq = await repo.lockLetterCounter(trx, accountId, year);
    const existing = group(
      await repo.lettersOf(
        trx,
        accountId,
        batch.map((p) => p.invoice.id),
      ),
      (l) => l.invoice_id,
    );
    const todo = batch.filter(
      (p) => !(existing.get(p.invoice.id) ?? []).some((l) => l.level >= p.levelNumber),
    );
    if (!todo.length) return [];
    const now = nowIso();
    const values = todo.map((p) => {
      const number = letterNumber(year, ++seq);
      const cents = {
        open_amount: toCents(p.preview.open_amount)!,
        fee: toCents(p.preview.fee)!,
        flat_fee: toCents(p.preview.flat_fee)!,
        interest: toCents(p.preview.interest)!,
        total_due: toCents(p.preview.total_due)!,
      };
      const { subject, body } = texts(p.level, p.preview.language, {
        number,
        date: p.preview.date,
        invoice: p.invoice,
        currency: p.preview.currency,
        amounts: cents,
        company,
      });
      return {
        account_id: accountId,
        number,
        invoice_id: p.invoice.id,
        client_id: p.invoice.client_id,
        level: p.levelNumber,
        date: p.preview.date,
        currency: p.preview.currency,
        language: p.preview.language,
        ...cents,
        interest_breakdown: JSON.stringify(p.breakdown),
        subject,
        body,
        delivery: p.preview.delivery,
        status: 'open',
        sent_at: null,
        cancelled_at: null,
        settled_at: null,
        charges_invoice_id: null,
        created_at: now,
        updated_at: now,
      };
    });
    await repo.setLetterCounter(trx, accountId, year, seq);
    const rows = await repo.insertLetters(trx, values);
    await touchInvoices(
      trx,
      accountId,
      rows.map((r) => r.invoice_id),
      now,
    );
    await recordEvents(
      trx,
      rows.map((row) => ({
        accountId,
        kind: 'dunning:created' as const,
        resourceType: 'dunning',
        resourceId: row.id,
        data: toLetter(row),
        integrationId: actor?.integrationId ?? null,
      })),
    );
    await recordAudits(
      trx,
      rows.map((row) =>
        auditEntry(accountId, actor, 'dunning.create', row.id, {
          number: row.number,
          invoice_id: row.invoice_id,
          level: row.level,
          total_due: fromCents(row.total_due),
        }),
      ),
    );
    // A level delivered by e-mail goes out with the run, when a relay is configured and the
    // client has an address; otherwise the letter stays open for post or a later send.
    const out: LetterRow[] = [];
    for (const row of rows) {
      const level = send.levels[row.level - 1];
      if (level?.delivery === 'email' && send.mail) {
        const queued = await queueLetter(trx, row, {
          body: {},
          mail: send.mail,
          actor,
          levels: send.levels,
          required: false,
        });
        if (queued) {
          out.push((await repo.findLetter(trx, accountId, row.id))!);
          continue;
        }
      }
      out.push(row);
    }
    return out;
  });
}

/** POST /dunning/run: `date` defaults to today and may not be after it. */
export async function run(
  db: Db,
  auth: AuthContext,
  body: RunBody,
  today = todayIso(),
  mail: MailConfig | null = null,
): Promise<RunResult> {
  const date = body.date ?? today;
  if (date > today) {
    throw new AppError('validation_failed', 'A run cannot be dated after today', {
      errors: [{ field: 'date', message: `must not be after ${today}` }],
    });
  }
  return runDunning(db, auth.accountId, { date, dryRun: body.dry_run ?? false, actor: auth, mail });
}

function group<T>(rows: readonly T[], key: (r: T) => number): Map<number, T[]> {
  const by = new Map<number, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = by.get(k);
    if (list) list.push(r);
    else by.set(k, [r]);
  }
  return by;
}
