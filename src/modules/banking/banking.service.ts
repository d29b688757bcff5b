import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Insertable } from 'kysely';
import { type Db, isPostgres } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { AppError, type FieldError, invalidField, notFound, validationFailed } from '../../shared/errors.js';
import { fromCents, toCents } from '../../shared/money.js';
import type { Page } from '../../shared/paging.js';
import { nowIso } from '../../shared/time.js';
import type { Upload } from '../files/files.public.js';
import * as invoices from '../outgoing-invoices/outgoing-invoices.public.js';
import * as payments from '../payments/payments.public.js';
import * as sepa from '../sepa/sepa.public.js';
import * as readModel from './banking.read-model.js';
import type { BankCsvProfileRow, BankStatementRow, BankTransactionRow } from './banking.repository.js';
import * as repo from './banking.repository.js';
import type {
  BankCsvProfile,
  BankCsvProfileCreate,
  BankStatement,
  BankStatementListQuery,
  BankTransaction,
  BankTransactionListQuery,
  CsvProfileListQuery,
  MatchBody,
} from './banking.schemas.js';
import type { BankStatementTable } from './banking.tables.js';
import { type CsvColumns, type CsvProfile, columnProblems, parseCsv } from './csv.domain.js';
import {
  type Allocation,
  type Candidate,
  decide,
  type MatchLine,
  referencesIn,
  relevantInvoices,
} from './matching.domain.js';
import { balancesAddUp, entryIdentities, type ParsedStatement, StatementError } from './statement.domain.js';
import { readStatementFile } from './statement.pool.js';

const money = (v: number | string | null): number | null => (v === null ? null : fromCents(Number(v)));

export function toStatement(r: BankStatementRow): BankStatement {
  return {
    id: r.id,
    payment_account_id: r.payment_account_id,
    format: r.format as BankStatement['format'],
    statement_ref: r.statement_ref,
    file_name: r.file_name,
    currency: r.currency,
    period_start: r.period_start,
    period_end: r.period_end,
    opening_balance: money(r.opening_balance),
    closing_balance: money(r.closing_balance),
    entries_new: r.entries_new,
    entries_known: r.entries_known,
    entries_skipped: r.entries_skipped,
    matched: r.matched,
    warnings: JSON.parse(r.warnings) as string[],
    created_at: r.created_at,
  };
}

// ---- matching context -------------------------------------------------------------------

/** Which invoices a line settles: money in outgoing invoices, money out incoming ones. */
type Direction = 'outgoing' | 'incoming';

/** The fields every candidate row has, whichever direction's reader gave it. */
interface CandidateRow {
  id: number;
  invoice_number: string;
  currency: string;
}

/** How a direction reads its candidates and the parties of IBANs, and what differs in its rows. */
interface CandidateSource<R extends CandidateRow> {
  rows: (db: Db, accountId: number) => Promise<R[]>;
  ibans: (db: Db, accountId: number) => Promise<Map<string, number[]>>;
  party: (r: R) => number | null;
  /** Estimated open cents (read exactly before an automatic match). */
  open: (r: R) => number;
  /** Whether that estimate is the exact open amount as loaded (Candidate.known). */
  known: (r: R) => boolean;
  /** The RF reference the payer copies; undefined: the one the service prints for the number. */
  reference: (r: R) => string | null | undefined;
  /** Exact open cents by invoice id. */
  exact: (db: Db, accountId: number, ids: number[]) => Promise<Map<number, number>>;
}

/** One mapper for both directions: the row type stays inside, the context sees candidates. */
const source = <R extends CandidateRow>(s: CandidateSource<R>) => ({
  async load(db: Db, accountId: number) {
    const [rows, ibans] = await Promise.all([s.rows(db, accountId), s.ibans(db, accountId)]);
    const list = rows.map((r): Candidate => {
      const reference = s.reference(r);
      return {
        id: r.id,
        number: r.invoice_number,
        client_id: s.party(r),
        currency: r.currency,
        ...(reference === undefined ? {} : { reference }),
        open: s.open(r),
        exact: false,
        known: s.known(r),
      };
    });
    return { list, ibans };
  },
  exact: s.exact,
});

const SOURCES = {
  outgoing: source({
    rows: readModel.invoiceCandidates,
    ibans: readModel.clientsByIban,
    party: (r) => r.client_id,
    open: (r) => (r.gross === null ? 0 : r.gross - r.paid),
    // The invoices module's open amount is the stored gross of the lines less the payments,
    // except for a final invoice (less its plan's deductions) or one without stored totals.
    known: (r) => r.gross !== null && r.type !== 'final',
    reference: () => undefined,
    exact: async (db, accountId, ids) => {
      const states = await invoices.invoiceStates(db, accountId, ids);
      return new Map([...states].map(([id, state]) => [id, state.payment.open]));
    },
  }),
  incoming: source({
    rows: (db, accountId) => readModel.incomingCandidates(db, accountId),
    ibans: readModel.suppliersByIban,
    party: (r) => r.supplier_id,
    open: (r) => r.open,
    // The paid total is kept on the document: its open amount as loaded is exact.
    known: () => true,
    // Only a reference the supplier asked for counts: none is derived from their number.
    reference: (r) => referencesIn(r.payment_reference ?? '')[0] ?? null,
    exact: async (db, accountId, ids) =>
      new Map((await readModel.incomingCandidates(db, accountId, ids)).map((r) => [r.id, r.open])),
  }),
} satisfies Record<Direction, unknown>;

/**
 * What matching knows during one request about one direction: the candidate invoices, one
 * list whose open amounts are estimated at first and read exactly on demand (changed in
 * place, so the lookups built over the list stay valid), and the parties of known IBANs.
 */
class MatchContext {
  private readonly byId = new Map<number, Candidate>();
  private readonly lines = new WeakMap<BankTransactionRow, MatchLine>();
  private constructor(
    private readonly accountId: number,
    readonly direction: Direction,
    private readonly list: Candidate[],
    private readonly ibans: Map<string, number[]>,
  ) {
    for (const c of list) this.byId.set(c.id, c);
  }

  static async load(db: Db, accountId: number, direction: Direction = 'outgoing'): Promise<MatchContext> {
    const { list, ibans } = await SOURCES[direction].load(db, accountId);
    return new MatchContext(accountId, direction, list, ibans);
  }

  /** Whether the line is this direction's: money in for outgoing invoices, out for incoming. */
  concerns(t: BankTransactionRow): boolean {
    const amount = Number(t.amount);
    return this.direction === 'outgoing' ? amount > 0 : amount < 0;
  }

  /** The line as matching reads it: the amount to allocate, positive in both directions. */
  lineOf(t: BankTransactionRow): MatchLine {
    let line = this.lines.get(t);
    if (!line) {
      const amount = Number(t.amount);
      line = { ...lineOf(t), amount: this.direction === 'outgoing' ? amount : -amount };
      this.lines.set(t, line);
    }
    return line;
  }

  numberOf(id: number): string {
    return this.byId.get(id)?.number ?? '';
  }

  clientsOf(iban: string | null): number[] {
    return iban ? (this.ibans.get(iban) ?? []) : [];
  }

  private options(suggest: boolean) {
    return { suggest, strictParty: this.direction === 'incoming' };
  }

  /** Suggestions only (estimated open amounts): for reading lists. */
  suggest(line: MatchLine) {
    return decide(line, this.list, this.clientsOf(line.counterparty_iban), undefined, this.options(true))
      .suggestions;
  }

  /**
   * Reads the exact open amounts of the invoices the lines could concern, in one batch per
   * round. First what the lines name and the invoices of an IBAN's party; `fresh`: these again
   * even if read before (another request may have paid meanwhile). Then, until nothing is
   * added, the other invoices of the parties whose invoices the numbers would settle (the
   * twin check of matching.domain.ts) whose open amount the load did not know exactly (final
   * invoices, invoices without stored totals), each once an import: reading a busy client's
   * invoices for every chunk would cost more than the import. A change another request makes
   * to one of those meanwhile is not seen by that check; what is allocated is read fresh.
   */
  async readExact(db: Db, lines: readonly MatchLine[], fresh = false): Promise<void> {
    const relevant = (parties: boolean, again: boolean) => {
      const ids = new Set<number>();
      for (const line of lines)
        for (const id of relevantInvoices(
          line,
          this.list,
          this.clientsOf(line.counterparty_iban),
          undefined,
          {
            ...this.options(false),
            parties,
          },
        ))
          if (again || !this.byId.get(id)!.exact) ids.add(id);
      return ids;
    };
    await this.read(db, relevant(false, fresh));
    for (let ids = relevant(true, false); ids.size > 0; ids = relevant(true, false)) await this.read(db, ids);
  }

  private async read(db: Db, ids: ReadonlySet<number>): Promise<void> {
    if (ids.size === 0) return;
    const open = await SOURCES[this.direction].exact(db, this.accountId, [...ids]);
    for (const id of ids) {
      const c = this.byId.get(id)!;
      c.open = open.get(id) ?? 0;
      c.exact = true;
    }
  }

  /** The decision on exact open amounts of every invoice the line could concern. */
  async decide(db: Db, line: MatchLine) {
    // Read ahead for the whole chunk; an IBAN learnt from an earlier line of it may add a few.
    await this.readExact(db, [line]);
    return decide(line, this.list, this.clientsOf(line.counterparty_iban), undefined, this.options(false));
  }

  /** A payment was recorded: the invoice's open amount drops; its party's IBAN is known now. */
  paid(invoiceId: number, cents: number, iban: string | null): void {
    const c = this.byId.get(invoiceId);
    if (c) c.open -= cents;
    const client = c?.client_id;
    if (iban && client) {
      const list = this.ibans.get(iban) ?? [];
      if (!list.includes(client)) this.ibans.set(iban, [...list, client]);
    }
  }
}

const lineOf = (t: BankTransactionRow): MatchLine => ({
  amount: Number(t.amount),
  currency: t.currency,
  remittance: t.remittance,
  creditor_reference: t.creditor_reference,
  end_to_end_id: t.end_to_end_id,
  counterparty_iban: t.counterparty_iban,
});

/**
 * A line carrying the end-to-end id of one of our SEPA files' items in transit, for its exact
 * amount (paid out for a credit transfer, received for a direct debit), confirms the item:
 * the payment is recorded on its invoice and the item leaves transit. Answers whether it did;
 * a payment the ledger refuses now (paid by hand meanwhile, a locked period) leaves the line
 * unmatched.
 */
async function confirmSepaItem(
  trx: Db,
  auth: AuthContext,
  t: BankTransactionRow,
  item: sepa.ItemInTransit | undefined,
): Promise<boolean> {
  if (!item || t.currency !== 'EUR') return false;
  const amount = Number(t.amount);
  if (amount !== (item.kind === 'incoming' ? -item.amount : item.amount)) return false;
  return refusedIsFalse(
    transact(trx, async (inner) => {
      const allocations = [{ invoice_id: item.invoice_id, amount: item.amount }];
      if (item.kind === 'outgoing') await recordAllocations(inner, auth, t, allocations, 'auto');
      else await recordIncomingAllocations(inner, auth, t, allocations, 'auto');
      await sepa.confirmItem(inner, auth.accountId, item, t.id);
    }),
  );
}

/** True when the writes went through; false when the ledger refused them (a 4xx). */
async function refusedIsFalse(work: Promise<unknown>): Promise<boolean> {
  try {
    await work;
    return true;
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return false;
    throw err;
  }
}

/** The ledger payment of one allocation of a line. */
const paymentOf = (t: BankTransactionRow, a: Allocation): payments.PaymentToRecord => ({
  invoice_id: a.invoice_id,
  amount: a.amount,
  date: t.booking_date,
  payment_account_id: t.payment_account_id,
  description: `Bank transaction ${t.id}${t.remittance ? `: ${t.remittance}` : ''}`.slice(0, 1000),
});

/** The ledger names its own fields: here they are those of allocation `i`. */
const asAllocationError =
  (i: number, fields: Record<string, string> = {}) =>
  (err: unknown): never => {
    if (!(err instanceof AppError) || !err.errors) throw err;
    throw new AppError(err.code, err.message, {
      errors: err.errors.map((e) => ({
        field: `allocations.${i}.${fields[e.field] ?? e.field}`,
        message: e.message,
      })),
    });
  };

/** Records the allocations as payments in the ledger and links them to the line. */
async function recordAllocations(
  trx: Db,
  auth: AuthContext,
  t: BankTransactionRow,
  allocations: Allocation[],
  origin: 'auto' | 'manual',
): Promise<void> {
  const matches = [];
  for (const [i, a] of allocations.entries()) {
    const payment = await payments
      .recordPayment(trx, auth, {
        invoice_id: a.invoice_id,
        amount: fromCents(a.amount),
        date: t.booking_date,
        payment_account_id: t.payment_account_id,
        description: paymentOf(t, a).description,
      })
      .catch(asAllocationError(i));
    matches.push({
      account_id: auth.accountId,
      transaction_id: t.id,
      payment_id: payment.id,
      invoice_id: a.invoice_id,
      amount: a.amount,
      origin,
    });
  }
  await repo.insertMatches(trx, matches);
  await repo.setTransactionStatus(trx, auth.accountId, t.id, 'matched', nowIso());
}

/**
 * Records money paid out against incoming invoices: one incoming payment per allocation (so
 * unmatching one line removes exactly its payments), linked to the line.
 */
async function recordIncomingAllocations(
  trx: Db,
  auth: AuthContext,
  t: BankTransactionRow,
  allocations: Allocation[],
  origin: 'auto' | 'manual',
): Promise<void> {
  if (origin === 'auto') {
    // All or nothing without a savepoint (a PostgreSQL import chunk has none): every
    // allocation is checked against what is open before the first payment is written.
    const open = new Map(
      (
        await readModel.incomingCandidates(
          trx,
          auth.accountId,
          allocations.map((a) => a.invoice_id),
        )
      ).map((r) => [r.id, r.open]),
    );
    if (allocations.some((a) => (open.get(a.invoice_id) ?? 0) < a.amount))
      throw new AppError('conflict', `Bank transaction ${t.id}: an invoice was paid meanwhile`);
  }
  const matches = [];
  for (const [i, a] of allocations.entries()) {
    const payment = await payments
      .recordIncomingPayment(trx, auth, {
        amount: fromCents(a.amount),
        date: t.booking_date,
        incoming_invoice_id: a.invoice_id,
        payment_account_id: t.payment_account_id,
        reference: `Bank transaction ${t.id}${t.remittance ? `: ${t.remittance}` : ''}`.slice(0, 255),
      })
      .catch(asAllocationError(i, { incoming_invoice_id: 'invoice_id' }));
    matches.push({
      account_id: auth.accountId,
      transaction_id: t.id,
      payment_id: payment.id,
      invoice_id: a.invoice_id,
      amount: a.amount,
      origin,
      invoice_kind: 'incoming',
    });
  }
  await repo.insertMatches(trx, matches);
  await repo.setTransactionStatus(trx, auth.accountId, t.id, 'matched', nowIso());
}

// ---- import ------------------------------------------------------------------------------

/** Entries stored and matched in one transaction (docs/banking.md, "Import in chunks"). */
const IMPORT_CHUNK = 100;

async function parseUpload(
  upload: Upload,
  csv?: { profile: CsvProfile; currency: string },
): Promise<ParsedStatement[]> {
  try {
    return csv ? [parseCsv(upload.data, csv.profile, csv.currency)] : await readStatementFile(upload.data);
  } catch (err) {
    if (err instanceof StatementError) throw invalidField('file', err.message);
    throw err;
  }
}

async function paymentAccountFor(
  db: Db,
  auth: AuthContext,
  statements: ParsedStatement[],
  given: number | undefined,
): Promise<payments.PaymentAccountRow> {
  const ibans = [...new Set(statements.map((s) => s.account_iban).filter((x): x is string => x !== null))];
  if (ibans.length > 1)
    throw invalidField(
      'file',
      `the file holds statements of ${ibans.length} accounts; import one account per file`,
    );
  if (given !== undefined) {
    const account = await payments.findPaymentAccount(db, auth.accountId, given);
    if (!account)
      throw new AppError('invalid_reference', 'No such payment account', {
        errors: [{ field: 'payment_account_id', message: 'no such payment account' }],
      });
    if (ibans[0] && account.iban && account.iban !== ibans[0])
      throw invalidField(
        'payment_account_id',
        `the statement is of IBAN ${ibans[0]}, the payment account has ${account.iban}`,
      );
    return account;
  }
  if (!ibans[0])
    throw invalidField('payment_account_id', 'the statement names no IBAN: give the payment account');
  const found = await payments.paymentAccountsByIban(db, auth.accountId, ibans[0]);
  if (found.length === 0)
    throw invalidField(
      'payment_account_id',
      `no payment account has IBAN ${ibans[0]}: create one (POST /payment-accounts) or give payment_account_id`,
    );
  return found[0]!;
}

/** Reads a statement file, stores its new entries and matches what is certain. */
export async function importStatement(
  db: Db,
  auth: AuthContext,
  upload: Upload,
  paymentAccountId: number | undefined,
  csvProfileId?: number,
): Promise<BankStatement> {
  let statements: ParsedStatement[];
  let account: payments.PaymentAccountRow;
  if (csvProfileId !== undefined) {
    // A CSV export names no account: the caller does.
    const profile = await repo.findCsvProfile(db, auth.accountId, csvProfileId);
    const missing: FieldError[] = [];
    if (!profile) missing.push({ field: 'csv_profile_id', message: 'no such CSV profile' });
    if (paymentAccountId === undefined) {
      if (missing.length > 0)
        throw new AppError('invalid_reference', 'No such CSV profile', { errors: missing });
      throw invalidField('payment_account_id', 'is required with a CSV profile');
    }
    const found = await payments.findPaymentAccount(db, auth.accountId, paymentAccountId);
    if (!found) missing.push({ field: 'payment_account_id', message: 'no such payment account' });
    if (missing.length > 0)
      throw new AppError('invalid_reference', 'A referenced record does not exist', { errors: missing });
    account = found!;
    statements = await parseUpload(upload, { profile: profileOf(profile!), currency: account.currency });
  } else {
    statements = await parseUpload(upload);
    account = await paymentAccountFor(db, auth, statements, paymentAccountId);
  }
  const entries = statements.flatMap((s) => s.entries);
  const identities = entryIdentities(account.id, entries);
  const warnings: string[] = [];
  if (!statements.every(balancesAddUp)) warnings.push('balances_do_not_add_up');
  const currency = statements.find((s) => s.currency)?.currency ?? entries[0]?.currency ?? null;
  if (currency && currency !== account.currency) warnings.push('currency_differs');
  const first = statements[0]!;
  const last = statements.at(-1)!;
  const dates = [
    ...statements.flatMap((s) => [s.period_start, s.period_end]),
    ...entries.map((e) => e.booking_date),
  ].filter((d): d is string => d !== null);
  dates.sort();

  const values: Insertable<BankStatementTable> = {
    account_id: auth.accountId,
    payment_account_id: account.id,
    format: first.format,
    statement_ref:
      statements.length === 1
        ? first.statement_id
        : `${first.statement_id ?? ''}…${last.statement_id ?? ''}`.slice(0, 80),
    file_name: upload.filename,
    file_sha256: upload.sha256,
    currency,
    period_start: dates[0] ?? null,
    period_end: dates.at(-1) ?? null,
    opening_balance: first.opening_balance,
    closing_balance: last.closing_balance,
    entries_new: 0,
    entries_known: 0,
    entries_skipped: statements.reduce((n, s) => n + s.skipped, 0),
    matched: 0,
    warnings: JSON.stringify(warnings),
  };
  // The invoices of each direction the file has lines of are read once for the whole file.
  const ctx = {
    in: entries.some((e) => e.amount > 0) ? await MatchContext.load(db, auth.accountId) : undefined,
    out: entries.some((e) => e.amount < 0)
      ? await MatchContext.load(db, auth.accountId, 'incoming')
      : undefined,
  };
  let statement: BankStatementRow | undefined;
  const totals = { entries_new: 0, entries_known: 0, matched: 0 };
  // One transaction a chunk, not one for the file: other requests run between chunks (on
  // SQLite they wait for a transaction's commit). Each chunk stores its new lines and their
  // matches together, so a re-import after a failure mid-way stores and matches the rest
  // without a duplicate (the identities decide); the statement's counts grow with each chunk.
  for (let from = 0; from === 0 || from < entries.length; from += IMPORT_CHUNK) {
    // Also after reading the candidates: the requests waiting meanwhile go first.
    await nextTurn();
    const slice = entries.slice(from, from + IMPORT_CHUNK);
    statement = await transact(db, async (trx) => {
      const stored = statement ?? (await repo.insertStatement(trx, values));
      const now = nowIso();
      const inserted = await repo.insertNewTransactions(
        trx,
        slice.map((e, i) => ({
          account_id: auth.accountId,
          payment_account_id: account.id,
          statement_id: stored.id,
          identity: identities[from + i]!,
          booking_date: e.booking_date,
          value_date: e.value_date,
          amount: e.amount,
          currency: e.currency,
          counterparty_name: e.counterparty_name,
          counterparty_iban: e.counterparty_iban,
          counterparty_bic: e.counterparty_bic,
          remittance: e.remittance,
          creditor_reference: e.creditor_reference,
          end_to_end_id: e.end_to_end_id,
          mandate_id: e.mandate_id,
          bank_reference: e.bank_reference,
          booking_text: e.booking_text,
          return_reason: e.return_reason ?? null,
          created_at: now,
          updated_at: now,
        })),
      );
      const matched = await matchChunk(trx, auth, inserted, ctx);
      const counts = {
        entries_new: totals.entries_new + inserted.length,
        entries_known: totals.entries_known + slice.length - inserted.length,
        matched: totals.matched + matched,
      };
      await repo.updateStatement(trx, stored.id, counts);
      return { ...stored, ...counts };
    });
    Object.assign(totals, {
      entries_new: statement.entries_new,
      entries_known: statement.entries_known,
      matched: statement.matched,
    });
  }
  return toStatement(statement!);
}

/** Confirms SEPA items by the new lines of a chunk and matches what is certain; answers how many. */
async function matchChunk(
  trx: Db,
  auth: AuthContext,
  stored: BankTransactionRow[],
  ctx: { in: MatchContext | undefined; out: MatchContext | undefined },
): Promise<number> {
  let matched = 0;
  // Returns first: a line taking a collection or transfer back is nothing to match.
  const returned = await undoReturnedItems(trx, auth, stored);
  const inserted = stored.filter((t) => !returned.has(t.id));
  const items = await sepa.itemsInTransit(
    trx,
    auth.accountId,
    inserted.map((t) => t.end_to_end_id).filter((x): x is string => x !== null),
  );
  const confirmed = new Set<number>();
  for (const t of inserted) {
    if (t.end_to_end_id === null || !(await confirmSepaItem(trx, auth, t, items.get(t.end_to_end_id))))
      continue;
    // One line confirms an item once, even if the file holds its id twice.
    items.delete(t.end_to_end_id);
    confirmed.add(t.id);
    matched++;
  }
  const rest = inserted.filter((t) => !confirmed.has(t.id));
  if (ctx.in) matched += await matchCredits(trx, auth, rest, ctx.in);
  if (ctx.out) matched += await matchDebits(trx, auth, rest, ctx.out);
  return matched;
}

/**
 * R-transactions of our SEPA files: a line taking back (return, reversal, refund) the exact
 * amount of a collection or credit transfer a bank line confirmed, by its end-to-end id (a
 * collection comes back as money out, a transfer as money in), undoes the payment that
 * confirmation recorded (the invoice is open again, an outgoing one's dunning follows, as for
 * an unmatch) and marks the item `returned` (a first collection leaves the mandate's next
 * collection a first one again). Together the two lines moved nothing: both are set aside, the
 * returning one keeping its reason. Answers the lines dealt with.
 */
async function undoReturnedItems(
  trx: Db,
  auth: AuthContext,
  inserted: BankTransactionRow[],
): Promise<Set<number>> {
  const done = new Set<number>();
  const returns = inserted.filter((t) => t.return_reason !== null && t.end_to_end_id !== null);
  if (returns.length === 0) return done;
  const items = await sepa.itemsConfirmed(
    trx,
    auth.accountId,
    returns.map((t) => t.end_to_end_id!),
  );
  for (const t of returns) {
    const item = items.get(t.end_to_end_id!);
    if (!item || t.currency !== 'EUR') continue;
    if (Number(t.amount) !== (item.kind === 'outgoing' ? -item.amount : item.amount)) continue;
    const undone = await refusedIsFalse(
      transact(trx, async (inner) => {
        const all = await repo.matchesOf(inner, auth.accountId, [item.transaction_id]);
        const mine = all.filter((m) => m.invoice_kind === item.kind && m.invoice_id === item.invoice_id);
        await repo.deleteMatches(
          inner,
          auth.accountId,
          mine.map((m) => m.id),
        );
        const remove =
          item.kind === 'outgoing' ? payments.removeOutgoingPayments : payments.removeIncomingPayments;
        await remove(
          inner,
          auth,
          mine.map((m) => m.payment_id),
        );
        const now = nowIso();
        if (mine.length === all.length)
          await repo.setTransactionStatus(inner, auth.accountId, item.transaction_id, 'ignored', now);
        await sepa.returnItem(inner, auth.accountId, item, t.id);
        await repo.setTransactionStatus(inner, auth.accountId, t.id, 'ignored', now);
      }),
    );
    if (!undone) continue;
    items.delete(t.end_to_end_id!);
    done.add(t.id);
  }
  return done;
}

/** Money in against outgoing invoices: decided line by line, recorded in one go. */
async function matchCredits(
  trx: Db,
  auth: AuthContext,
  rows: BankTransactionRow[],
  ctx: MatchContext,
): Promise<number> {
  const credits = rows.filter((t) => ctx.concerns(t));
  if (credits.length === 0) return 0;
  // The exact open amounts of every invoice the chunk's lines could concern, in one read; the
  // decisions, line by line as each payment lowers what is open; then the ledger, in one go.
  const lines = credits.map((t) => ctx.lineOf(t));
  await ctx.readExact(trx, lines, true);
  const decided: { t: BankTransactionRow; auto: Allocation[] }[] = [];
  for (const [i, t] of credits.entries()) {
    const { auto } = await ctx.decide(trx, lines[i]!);
    if (!auto) continue;
    decided.push({ t, auto });
    for (const a of auto) ctx.paid(a.invoice_id, a.amount, t.counterparty_iban);
  }
  const recorded = await payments.recordPayments(
    trx,
    auth,
    decided.flatMap(({ t, auto }) => auto.map((a) => paymentOf(t, a))),
  );
  let n = 0;
  await repo.insertMatches(
    trx,
    decided.flatMap(({ t, auto }) =>
      auto.map((a) => ({
        account_id: auth.accountId,
        transaction_id: t.id,
        payment_id: recorded[n++]!.id,
        invoice_id: a.invoice_id,
        amount: a.amount,
        origin: 'auto',
      })),
    ),
  );
  await repo.setTransactionsStatus(
    trx,
    auth.accountId,
    decided.map(({ t }) => t.id),
    'matched',
    nowIso(),
  );
  return decided.length;
}

/**
 * Money out against incoming invoices: few lines a month, so each is recorded as decided, in
 * a savepoint of its own; a payment the ledger refuses (a locked period) leaves it unmatched.
 */
async function matchDebits(
  trx: Db,
  auth: AuthContext,
  rows: BankTransactionRow[],
  ctx: MatchContext,
): Promise<number> {
  const debits = rows.filter((t) => ctx.concerns(t));
  if (debits.length === 0) return 0;
  const lines = debits.map((t) => ctx.lineOf(t));
  await ctx.readExact(trx, lines, true);
  let matched = 0;
  for (const [i, t] of debits.entries()) {
    const { auto } = await ctx.decide(trx, lines[i]!);
    if (!auto) continue;
    const done = await refusedIsFalse(
      transact(trx, (inner) => recordIncomingAllocations(inner, auth, t, auto, 'auto')),
    );
    if (!done) continue;
    for (const a of auto) ctx.paid(a.invoice_id, a.amount, t.counterparty_iban);
    matched++;
  }
  return matched;
}

// ---- reads -------------------------------------------------------------------------------

async function present(db: Db, auth: AuthContext, rows: BankTransactionRow[]): Promise<BankTransaction[]> {
  const matches = await repo.matchesOf(
    db,
    auth.accountId,
    rows.map((r) => r.id),
  );
  const open = rows.filter((r) => r.status === 'unmatched');
  const ctx = {
    in: open.some((r) => Number(r.amount) > 0) ? await MatchContext.load(db, auth.accountId) : undefined,
    out: open.some((r) => Number(r.amount) < 0)
      ? await MatchContext.load(db, auth.accountId, 'incoming')
      : undefined,
  };
  const suggestionsOf = (r: BankTransactionRow) => {
    const c = Number(r.amount) > 0 ? ctx.in : ctx.out;
    if (!c || r.status !== 'unmatched') return [];
    return c.suggest(c.lineOf(r)).map((s) => ({
      invoice_id: s.invoice_id,
      invoice_kind: c.direction,
      invoice_number: c.numberOf(s.invoice_id),
      amount: fromCents(s.amount),
      score: s.score,
      reasons: s.reasons,
    }));
  };
  return rows.map((r) => ({
    id: r.id,
    payment_account_id: r.payment_account_id,
    statement_id: r.statement_id,
    booking_date: r.booking_date,
    value_date: r.value_date,
    amount: fromCents(Number(r.amount)),
    currency: r.currency,
    counterparty_name: r.counterparty_name,
    counterparty_iban: r.counterparty_iban,
    counterparty_bic: r.counterparty_bic,
    remittance: r.remittance,
    creditor_reference: r.creditor_reference,
    end_to_end_id: r.end_to_end_id,
    mandate_id: r.mandate_id,
    bank_reference: r.bank_reference,
    booking_text: r.booking_text,
    return_reason: r.return_reason,
    status: r.status as BankTransaction['status'],
    matches: matches
      .filter((m) => m.transaction_id === r.id)
      .map((m) => ({
        invoice_id: m.invoice_id,
        payment_id: m.payment_id,
        amount: fromCents(Number(m.amount)),
        origin: m.origin as 'auto' | 'manual',
        invoice_kind: m.invoice_kind as 'outgoing' | 'incoming',
      })),
    suggestions: suggestionsOf(r),
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

export const listStatements = (db: Db, auth: AuthContext, q: BankStatementListQuery) =>
  repo.listStatements(db, auth.accountId, q);

export async function getStatement(db: Db, auth: AuthContext, id: number): Promise<BankStatementRow> {
  const row = await repo.findStatement(db, auth.accountId, id);
  if (!row) throw notFound('Bank statement');
  return row;
}

export async function listTransactions(
  db: Db,
  auth: AuthContext,
  q: BankTransactionListQuery,
): Promise<Page<BankTransaction>> {
  const bound = (v: number | undefined, field: string) => {
    if (v === undefined) return undefined;
    const c = toCents(v);
    if (c === undefined) throw invalidField(field, 'must have at most two decimals');
    return c;
  };
  const page = await repo.listTransactions(db, auth.accountId, {
    ...q,
    amount_min_cents: bound(q.amount_min, 'amount_min'),
    amount_max_cents: bound(q.amount_max, 'amount_max'),
  });
  return { ...page, rows: await present(db, auth, page.rows) };
}

/** Who and what is open on each suggested invoice of the lines: what the console shows beside them. */
export async function suggestedInvoices(
  db: Db,
  auth: AuthContext,
  lines: readonly BankTransaction[],
): Promise<Map<string, { party: string | null; open: number }>> {
  const ids = { outgoing: new Set<number>(), incoming: new Set<number>() };
  for (const l of lines) for (const s of l.suggestions) ids[s.invoice_kind].add(s.invoice_id);
  const out = new Map<string, { party: string | null; open: number }>();
  for (const kind of ['outgoing', 'incoming'] as const)
    for (const r of await readModel.suggestedInvoices(db, auth.accountId, kind, [...ids[kind]]))
      out.set(`${kind}:${r.id}`, { party: r.party, open: fromCents(r.open) });
  return out;
}

export async function getTransaction(db: Db, auth: AuthContext, id: number): Promise<BankTransaction> {
  const row = await repo.findTransaction(db, auth.accountId, id);
  if (!row) throw notFound('Bank transaction');
  return (await present(db, auth, [row]))[0]!;
}

// ---- match, unmatch, ignore ---------------------------------------------------------------

async function locked(trx: Db, auth: AuthContext, id: number): Promise<BankTransactionRow> {
  const row = await repo.lockTransaction(trx, auth.accountId, id, isPostgres(trx));
  if (!row) throw notFound('Bank transaction');
  return row;
}

/**
 * Matches a line by hand: money in to outgoing invoices, money out to incoming invoices (the
 * same body: `invoice_id` names an invoice of the line's direction), each allocation recorded
 * as a payment.
 */
export async function matchTransaction(
  db: Db,
  auth: AuthContext,
  id: number,
  body: MatchBody,
): Promise<BankTransaction> {
  await transact(db, async (trx) => {
    const t = await locked(trx, auth, id);
    if (t.status !== 'unmatched')
      throw new AppError('conflict', `Bank transaction ${id} is ${t.status}: unmatch it first`);
    // Money in settles outgoing invoices, money out incoming ones: `invoice_id` names one of those.
    const amount = Math.abs(Number(t.amount));
    if (amount === 0) throw invalidField('allocations', 'a line of 0 settles nothing');
    const errors: FieldError[] = [];
    const allocations: Allocation[] = [];
    const seen = new Set<number>();
    body.allocations.forEach((a, i) => {
      const cents = toCents(a.amount);
      if (cents === undefined)
        errors.push({ field: `allocations.${i}.amount`, message: 'must have at most two decimals' });
      if (seen.has(a.invoice_id))
        errors.push({ field: `allocations.${i}.invoice_id`, message: 'is given twice' });
      seen.add(a.invoice_id);
      allocations.push({ invoice_id: a.invoice_id, amount: cents ?? 0 });
    });
    const sum = allocations.reduce((s, a) => s + a.amount, 0);
    if (errors.length === 0 && sum > amount)
      errors.push({
        field: 'allocations',
        message: `add up to ${fromCents(sum)}, more than the line’s ${fromCents(amount)}`,
      });
    if (errors.length > 0) throw validationFailed(errors);
    if (Number(t.amount) > 0) await recordAllocations(trx, auth, t, allocations, 'manual');
    else {
      const known = new Set(
        (
          await readModel.incomingCandidates(
            trx,
            auth.accountId,
            allocations.map((a) => a.invoice_id),
          )
        ).map((r) => r.id),
      );
      const missing = allocations.flatMap((a, i) =>
        known.has(a.invoice_id)
          ? []
          : [{ field: `allocations.${i}.invoice_id`, message: 'no such incoming invoice' }],
      );
      if (missing.length > 0)
        throw new AppError('invalid_reference', 'No such incoming invoice', { errors: missing });
      await recordIncomingAllocations(trx, auth, t, allocations, 'manual');
    }
  });
  return getTransaction(db, auth, id);
}

/** Undoes a match (its payments leave the ledger) or an ignore: the line is unmatched again. */
export async function unmatchTransaction(db: Db, auth: AuthContext, id: number): Promise<BankTransaction> {
  await transact(db, async (trx) => {
    const t = await locked(trx, auth, id);
    if (t.status === 'unmatched') throw new AppError('conflict', `Bank transaction ${id} is not matched`);
    const matches = await repo.matchesOf(trx, auth.accountId, [t.id]);
    await repo.deleteMatchesOf(trx, auth.accountId, t.id);
    const paymentsOf = (kind: string) =>
      matches.filter((m) => m.invoice_kind === kind).map((m) => m.payment_id);
    await payments.removeOutgoingPayments(trx, auth, paymentsOf('outgoing'));
    await payments.removeIncomingPayments(trx, auth, paymentsOf('incoming'));
    // A SEPA item the line confirmed is in transit again until another line confirms it.
    await sepa.reopenItemsOf(trx, auth.accountId, t.id);
    await repo.setTransactionStatus(trx, auth.accountId, t.id, 'unmatched', nowIso());
  });
  return getTransaction(db, auth, id);
}

/** Sets a line aside (fees, salaries, transfers between own accounts …). */
export async function ignoreTransaction(db: Db, auth: AuthContext, id: number): Promise<BankTransaction> {
  await transact(db, async (trx) => {
    const t = await locked(trx, auth, id);
    if (t.status !== 'unmatched') throw new AppError('conflict', `Bank transaction ${id} is ${t.status}`);
    await repo.setTransactionStatus(trx, auth.accountId, t.id, 'ignored', nowIso());
  });
  return getTransaction(db, auth, id);
}

// ---- CSV profiles -------------------------------------------------------------------------

const profileOf = (r: BankCsvProfileRow): CsvProfile => ({
  delimiter: r.delimiter,
  decimal_separator: r.decimal_separator as ',' | '.',
  date_format: r.date_format as CsvProfile['date_format'],
  encoding: r.encoding as CsvProfile['encoding'],
  header_rows: r.header_rows,
  columns: JSON.parse(r.columns) as CsvColumns,
});

export function toCsvProfile(r: BankCsvProfileRow): BankCsvProfile {
  const p = profileOf(r);
  return {
    id: r.id,
    name: r.name,
    delimiter: p.delimiter as BankCsvProfile['delimiter'],
    decimal_separator: p.decimal_separator,
    date_format: p.date_format,
    encoding: p.encoding,
    header_rows: p.header_rows,
    columns: p.columns as BankCsvProfile['columns'],
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** A stored column mapping of a bank's CSV export. */
export async function createCsvProfile(
  db: Db,
  auth: AuthContext,
  body: BankCsvProfileCreate,
): Promise<BankCsvProfile> {
  const problems = columnProblems(body.columns);
  if (problems.length > 0) throw validationFailed(problems);
  const row = await repo.insertCsvProfile(db, {
    account_id: auth.accountId,
    name: body.name,
    delimiter: body.delimiter ?? ';',
    decimal_separator: body.decimal_separator ?? ',',
    date_format: body.date_format ?? 'DD.MM.YYYY',
    encoding: body.encoding ?? 'utf-8',
    header_rows: body.header_rows ?? 1,
    columns: JSON.stringify(body.columns),
  });
  return toCsvProfile(row);
}

export const listCsvProfiles = (db: Db, auth: AuthContext, q: CsvProfileListQuery) =>
  repo.listCsvProfiles(db, auth.accountId, q);

export async function getCsvProfile(db: Db, auth: AuthContext, id: number): Promise<BankCsvProfileRow> {
  const row = await repo.findCsvProfile(db, auth.accountId, id);
  if (!row) throw notFound('CSV profile');
  return row;
}
