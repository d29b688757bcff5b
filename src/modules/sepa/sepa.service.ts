import { isUniqueViolation } from '../../db/faults.js';
import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { AppError, type FieldError, invalidField, notFound, validationFailed } from '../../shared/errors.js';
import { isValidBic, isValidIban, normalizeIdentifier } from '../../shared/identifiers.js';
import { fromCents, toCents } from '../../shared/money.js';
import type { Page } from '../../shared/paging.js';
import { nowIso, todayIso } from '../../shared/time.js';
import { getAccountProfile } from '../account/account.service.js';
import { recordAudit } from '../audit/audit.service.js';
import * as incoming from '../incoming-invoices/incoming-invoices.public.js';
import * as outgoing from '../outgoing-invoices/outgoing-invoices.public.js';
import * as payments from '../payments/payments.public.js';
import {
  type Collection,
  creditTransferXml,
  directDebitXml,
  isMandateReference,
  type MandateAmendment,
  type PainVersion,
  SepaError,
  sameDebtorBank,
  sepaText,
  type Transfer,
} from './sepa.domain.js';
import * as readModel from './sepa.read-model.js';
import type { SepaMandateRow, SepaRunItemRow, SepaRunRow } from './sepa.repository.js';
import * as repo from './sepa.repository.js';
import type {
  CreditTransferCreate,
  DirectDebitCreate,
  MandateListQuery,
  RunListQuery,
  SepaMandate,
  SepaMandateCreate,
  SepaMandateUpdate,
  SepaRun,
} from './sepa.schemas.js';

const API = '/api/v1';
const PATHS = { credit_transfer: 'credit-transfers', direct_debit: 'direct-debits' } as const;

type ItemStatus = SepaRun['items'][number]['status'];

/**
 * The items of credit transfers still in transit whose invoice no longer is (paid in full
 * otherwise meanwhile): the stored state is `in_transit` (a bank line with the end-to-end id
 * may still come), the answer says `paid_otherwise`. Derived on reading, as the invoice's own
 * flag is cleared by the ledger, which knows nothing of runs.
 */
async function paidOtherwise(db: Db, accountId: number, items: SepaRunItemRow[]): Promise<Set<number>> {
  const waiting = items.filter((i) => i.status === 'in_transit' && i.incoming_invoice_id !== null);
  const runs = await readModel.incomingInTransitRuns(
    db,
    accountId,
    waiting.map((i) => i.incoming_invoice_id!),
  );
  return new Set(
    waiting
      .filter((i) => runs.has(i.incoming_invoice_id!) && runs.get(i.incoming_invoice_id!) !== i.run_id)
      .map((i) => i.id),
  );
}

function toRun(r: SepaRunRow, items: SepaRunItemRow[], otherwise = new Set<number>()): SepaRun {
  const kind = r.kind as SepaRun['kind'];
  return {
    id: r.id,
    kind,
    version: r.version,
    payment_account_id: r.payment_account_id,
    requested_date: r.requested_date,
    message_id: r.message_id,
    number_of_transactions: r.number_of_transactions,
    control_sum: fromCents(Number(r.control_sum)),
    file_url: `${API}/sepa/${PATHS[kind]}/${r.id}/file`,
    items: items.map((i) => ({
      invoice_id: (i.incoming_invoice_id ?? i.outgoing_invoice_id)!,
      amount: fromCents(Number(i.amount)),
      end_to_end_id: i.end_to_end_id,
      name: i.counterparty_name,
      iban: i.counterparty_iban,
      bic: i.counterparty_bic,
      remittance: i.remittance,
      mandate_id: i.mandate_id,
      sequence_type: i.sequence_type as 'FRST' | 'RCUR' | null,
      status: otherwise.has(i.id) ? 'paid_otherwise' : (i.status as ItemStatus),
      bank_transaction_id: i.bank_transaction_id,
    })),
    created_at: r.created_at,
  };
}

/** A refusal naming request fields: missing references first (422 invalid_reference). */
function refuse(missing: FieldError[], errors: FieldError[]): void {
  if (missing.length > 0)
    throw new AppError('invalid_reference', 'A referenced record does not exist', { errors: missing });
  if (errors.length > 0) throw validationFailed(errors);
}

/** The payment account a file is for: this account's, with an IBAN, in EUR. */
async function bankAccount(
  trx: Db,
  auth: AuthContext,
  id: number,
  missing: FieldError[],
  errors: FieldError[],
): Promise<payments.PaymentAccountRow | undefined> {
  const account = await payments.findPaymentAccount(trx, auth.accountId, id);
  if (!account) missing.push({ field: 'payment_account_id', message: 'no such payment account' });
  else if (!account.iban || !isValidIban(account.iban))
    errors.push({
      field: 'payment_account_id',
      message: 'has no IBAN: set it (PATCH /payment-accounts/{id})',
    });
  else if (account.currency !== 'EUR')
    errors.push({ field: 'payment_account_id', message: `is in ${account.currency}; SEPA files are in EUR` });
  return account;
}

function requestedDate(field: string, date: string, errors: FieldError[]): void {
  if (date < todayIso()) errors.push({ field, message: 'must be today or later' });
}

/** The amount asked for (default: all that is open), in cents; undefined with the error noted. */
function amountOf(
  field: string,
  given: number | undefined,
  open: number,
  errors: FieldError[],
): number | undefined {
  if (given === undefined) return open;
  const cents = toCents(given);
  if (cents === undefined) errors.push({ field, message: 'must have at most two decimals' });
  else if (cents > open) errors.push({ field, message: `exceeds the open amount ${fromCents(open)}` });
  else return cents;
  return undefined;
}

/** Stores a run with its items, writing the file with the run's id in its message id. */
async function storeRun(
  trx: Db,
  auth: AuthContext,
  run: { kind: SepaRun['kind']; version: string; payment_account_id: number; requested_date: string },
  items: Omit<
    SepaRunItemRow,
    'id' | 'account_id' | 'run_id' | 'end_to_end_id' | 'status' | 'bank_transaction_id'
  >[],
  file: (messageId: string, createdAt: string, endToEndIds: string[]) => string,
): Promise<SepaRunRow> {
  const createdAt = nowIso();
  const row = await repo.insertRun(trx, {
    account_id: auth.accountId,
    ...run,
    message_id: '',
    number_of_transactions: items.length,
    control_sum: items.reduce((s, i) => s + Number(i.amount), 0),
    file: '',
    created_at: createdAt,
  });
  // Run ids are unique in the database, so these are unique within the account (the bank
  // line's end-to-end id finds the item again) and the message id never repeats.
  const prefix = run.kind === 'credit_transfer' ? 'CT' : 'DD';
  const messageId = `${prefix}-${row.id}-${createdAt.slice(0, 19).replace(/[-:T]/g, '')}`;
  const e2e = items.map((_, n) => `${prefix}${row.id}-${n + 1}`);
  let xml: string;
  try {
    xml = file(messageId, createdAt, e2e);
  } catch (err) {
    // The request was checked field by field; this names what the file rules still found.
    if (err instanceof SepaError) throw new AppError('unprocessable', err.message);
    throw err;
  }
  await repo.setRunFile(trx, row.id, { file: xml, message_id: messageId });
  await repo.insertItems(
    trx,
    items.map((i, n) => ({
      ...i,
      account_id: auth.accountId,
      run_id: row.id,
      end_to_end_id: e2e[n]!,
      status: 'in_transit',
      bank_transaction_id: null,
    })),
  );
  return { ...row, file: xml, message_id: messageId };
}

// ---- credit transfers --------------------------------------------------------------------

/**
 * A pain.001 file paying incoming invoices to their suppliers' accounts; the invoices are in
 * transit until a bank statement line with the transfer's end-to-end id confirms them.
 */
export async function createCreditTransfer(
  db: Db,
  auth: AuthContext,
  body: CreditTransferCreate,
): Promise<SepaRun> {
  const version: PainVersion = body.version ?? 'pain.001.001.09';
  const run = await transact(db, async (trx) => {
    const missing: FieldError[] = [];
    const errors: FieldError[] = [];
    const account = await bankAccount(trx, auth, body.payment_account_id, missing, errors);
    requestedDate('execution_date', body.execution_date, errors);
    const ids = body.invoices.map((i) => i.incoming_invoice_id);
    const rows = new Map<number, incoming.IncomingInvoiceRow>();
    // Locked in id order: two runs naming the same invoices cannot deadlock.
    for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
      const row = await incoming.lockIncomingInvoice(trx, auth.accountId, id);
      if (row) rows.set(id, row);
    }
    const suppliers = await readModel.supplierAccounts(
      trx,
      auth.accountId,
      [...rows.values()].map((r) => r.supplier_id).filter((x): x is number => x !== null),
    );
    const inTransit = new Map(
      (await repo.inTransitFor(trx, auth.accountId, 'incoming_invoice_id', ids)).map((i) => [
        i.incoming_invoice_id!,
        i.run_id,
      ]),
    );
    const items: Parameters<typeof storeRun>[3] = [];
    const seen = new Set<number>();
    for (const [i, given] of body.invoices.entries()) {
      const field = `invoices.${i}.incoming_invoice_id`;
      const row = rows.get(given.incoming_invoice_id);
      if (!row) {
        missing.push({ field, message: 'no such incoming invoice' });
        continue;
      }
      if (seen.has(row.id)) {
        errors.push({ field, message: 'is named twice' });
        continue;
      }
      seen.add(row.id);
      const open = incoming.openCentsOf(row);
      const supplier = row.supplier_id === null ? undefined : suppliers.get(row.supplier_id);
      let problem: string | undefined;
      if (row.document_type !== 'Invoice') problem = 'must be an invoice (not a credit)';
      else if (row.currency !== 'EUR') problem = `is in ${row.currency}; SEPA credit transfers are in EUR`;
      else if (open <= 0) problem = 'is paid already';
      else if (inTransit.has(row.id))
        problem = `is in transit already (credit transfer ${inTransit.get(row.id)})`;
      else if (!supplier) problem = 'names no supplier: the supplier record holds the IBAN paid to';
      else if (!supplier.iban || !isValidIban(supplier.iban))
        problem = `its supplier ${supplier.id} has no valid IBAN: set it (PATCH /suppliers/${supplier.id})`;
      else if (supplier.bic && !isValidBic(supplier.bic))
        problem = `its supplier ${supplier.id} has no valid BIC`;
      if (problem) {
        errors.push({ field, message: problem });
        continue;
      }
      const amount = amountOf(`invoices.${i}.amount`, given.amount, open, errors);
      if (amount === undefined) continue;
      const reference = row.payment_reference ?? row.invoice_number;
      items.push({
        incoming_invoice_id: row.id,
        outgoing_invoice_id: null,
        mandate_id: null,
        sequence_type: null,
        amount,
        counterparty_name: sepaText(supplier!.name, 70) || `Supplier ${supplier!.id}`,
        counterparty_iban: normalizeIdentifier(supplier!.iban!),
        counterparty_bic: supplier!.bic ? normalizeIdentifier(supplier!.bic) : null,
        remittance: sepaText(reference ? `${reference}` : `Invoice ${row.id}`, 140),
      });
    }
    refuse(missing, errors);
    const profile = await getAccountProfile(trx, auth.accountId);
    const stored = await storeRun(
      trx,
      auth,
      {
        kind: 'credit_transfer',
        version,
        payment_account_id: account!.id,
        requested_date: body.execution_date,
      },
      items,
      (messageId, createdAt, e2e) =>
        creditTransferXml(
          {
            message_id: messageId,
            created_at: createdAt,
            debtor_name: profile.name,
            debtor_iban: account!.iban!,
            debtor_bic: account!.bic,
            execution_date: body.execution_date,
            transfers: items.map(
              (item, n): Transfer => ({
                amount: Number(item.amount),
                creditor_name: item.counterparty_name,
                creditor_iban: item.counterparty_iban,
                creditor_bic: item.counterparty_bic,
                remittance: item.remittance,
                end_to_end_id: e2e[n]!,
              }),
            ),
          },
          version,
        ),
    );
    await incoming.setPaymentInTransit(
      trx,
      auth.accountId,
      items.map((i) => i.incoming_invoice_id!),
      stored.id,
    );
    return stored;
  });
  return toRun(run, await repo.itemsOf(db, auth.accountId, run.id));
}

// ---- direct debits -----------------------------------------------------------------------

/**
 * A pain.008 file collecting open outgoing invoices from clients with an active mandate: a
 * mandate not used before is collected as FRST, and recurring (RCUR) from then on.
 */
export async function createDirectDebit(
  db: Db,
  auth: AuthContext,
  body: DirectDebitCreate,
): Promise<SepaRun> {
  const run = await transact(db, async (trx) => {
    const missing: FieldError[] = [];
    const errors: FieldError[] = [];
    const account = await bankAccount(trx, auth, body.payment_account_id, missing, errors);
    requestedDate('collection_date', body.collection_date, errors);
    const profile = await getAccountProfile(trx, auth.accountId);
    const named = body.invoices !== undefined;
    const wanted =
      body.invoices ??
      (await readModel.dueInvoicesOfMandatedClients(trx, auth.accountId, body.collection_date)).map((id) => ({
        invoice_id: id,
        amount: undefined,
      }));
    const ids = wanted.map((w) => w.invoice_id);
    const rows = new Map<number, outgoing.InvoiceRow>();
    for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
      const row = await outgoing.findInvoice(trx, auth.accountId, id, true);
      if (row) rows.set(id, row);
    }
    const clientIds = [
      ...new Set([...rows.values()].map((r) => r.client_id).filter((x): x is number => x !== null)),
    ];
    const mandates = await repo.activeMandates(trx, auth.accountId, clientIds);
    const names = await readModel.clientNames(trx, auth.accountId, clientIds);
    const inTransit = new Map(
      (await repo.inTransitFor(trx, auth.accountId, 'outgoing_invoice_id', ids)).map((i) => [
        i.outgoing_invoice_id!,
        i.run_id,
      ]),
    );
    const items: Parameters<typeof storeRun>[3] = [];
    const seen = new Set<number>();
    for (const [i, given] of wanted.entries()) {
      const field = `invoices.${i}.invoice_id`;
      const row = rows.get(given.invoice_id);
      if (!row) {
        missing.push({ field, message: 'no such outgoing invoice' });
        continue;
      }
      if (seen.has(row.id)) {
        errors.push({ field, message: 'is named twice' });
        continue;
      }
      seen.add(row.id);
      const mandate = row.client_id === null ? undefined : mandates.get(row.client_id);
      let problem: string | undefined;
      let open = 0;
      if (row.status !== 'booked' || row.type === 'credit' || outgoing.isMaster(row.type))
        problem = 'must be a booked invoice (not a credit or plan master)';
      else if (row.currency !== 'EUR') problem = `is in ${row.currency}; SEPA direct debits are in EUR`;
      else if (inTransit.has(row.id))
        problem = `is being collected already (direct debit ${inTransit.get(row.id)})`;
      else if (!mandate) problem = 'its client has no active SEPA mandate (POST /clients/{id}/sepa-mandates)';
      else {
        open = (await outgoing.invoiceState(trx, auth.accountId, row)).payment.open;
        if (open <= 0) problem = 'is paid already';
      }
      if (problem) {
        // Chosen by the service (all due): what cannot be collected is left out, not refused.
        if (named) errors.push({ field, message: problem });
        continue;
      }
      const amount = amountOf(`invoices.${i}.amount`, given.amount, open, errors);
      if (amount === undefined) continue;
      items.push({
        incoming_invoice_id: null,
        outgoing_invoice_id: row.id,
        mandate_id: mandate!.id,
        sequence_type: mandate!.sequence === 'first' ? 'FRST' : 'RCUR',
        amount,
        counterparty_name:
          sepaText(mandate!.debtor_name ?? names.get(row.client_id!) ?? '', 70) || `Client ${row.client_id}`,
        counterparty_iban: mandate!.iban,
        counterparty_bic: mandate!.bic,
        remittance: sepaText(row.invoice_number ?? `Invoice ${row.id}`, 140),
      });
    }
    refuse(missing, errors);
    if (!profile.sepa_creditor_identifier)
      throw new AppError(
        'unprocessable',
        'The company profile has no SEPA creditor identifier: set sepa_creditor_identifier (PATCH /account/profile)',
      );
    if (items.length === 0)
      throw invalidField(
        'invoices',
        `no open EUR invoice of a client with an active mandate is due by ${body.collection_date}`,
      );
    const byId = new Map([...mandates.values()].map((m) => [m.id, m]));
    const stored = await storeRun(
      trx,
      auth,
      {
        kind: 'direct_debit',
        version: 'pain.008.001.08',
        payment_account_id: account!.id,
        requested_date: body.collection_date,
      },
      items,
      (messageId, createdAt, e2e) =>
        directDebitXml({
          message_id: messageId,
          created_at: createdAt,
          creditor_name: profile.name,
          creditor_iban: account!.iban!,
          creditor_bic: account!.bic,
          creditor_identifier: profile.sepa_creditor_identifier!,
          collection_date: body.collection_date,
          collections: items.map((item, n): Collection => {
            const m = byId.get(item.mandate_id!)!;
            return {
              amount: Number(item.amount),
              debtor_name: item.counterparty_name,
              debtor_iban: item.counterparty_iban,
              debtor_bic: item.counterparty_bic,
              mandate_reference: m.reference,
              mandate_signed_on: m.signed_on,
              scheme: m.scheme as Collection['scheme'],
              sequence_type: item.sequence_type as Collection['sequence_type'],
              remittance: item.remittance,
              end_to_end_id: e2e[n]!,
              amendment: amendmentOf(m),
            };
          }),
        }),
    );
    // Collected once: the next file collects on these mandates as recurring, and the
    // amendment was reported (the debtor's bank knows the mandate as it is now).
    const now = nowIso();
    for (const id of new Set(items.map((i) => i.mandate_id!))) {
      const m = byId.get(id)!;
      if (m.sequence === 'first' || amendmentOf(m))
        await repo.updateMandate(trx, auth.accountId, id, {
          sequence: 'recurring',
          original_reference: null,
          original_iban: null,
          original_debtor_agent: null,
          updated_at: now,
        });
    }
    return stored;
  });
  return toRun(run, await repo.itemsOf(db, auth.accountId, run.id));
}

// ---- reading runs ------------------------------------------------------------------------

async function runOf(db: Db, auth: AuthContext, id: number, kind: SepaRun['kind']): Promise<SepaRunRow> {
  const row = await repo.findRun(db, auth.accountId, id, kind);
  if (!row) throw notFound(kind === 'credit_transfer' ? 'SEPA credit transfer' : 'SEPA direct debit');
  return row;
}

/** The account's runs of one kind, oldest first, each with its items. */
export async function listRuns(
  db: Db,
  auth: AuthContext,
  kind: SepaRun['kind'],
  q: RunListQuery,
): Promise<Page<SepaRun>> {
  const page = await repo.listRuns(db, auth.accountId, kind, q);
  const items = await repo.itemsOfRuns(
    db,
    auth.accountId,
    page.rows.map((r) => r.id),
  );
  const otherwise = await paidOtherwise(db, auth.accountId, items);
  return {
    ...page,
    rows: page.rows.map((r) =>
      toRun(
        r,
        items.filter((i) => i.run_id === r.id),
        otherwise,
      ),
    ),
  };
}

export async function getRun(db: Db, auth: AuthContext, id: number, kind: SepaRun['kind']): Promise<SepaRun> {
  const row = await runOf(db, auth, id, kind);
  const items = await repo.itemsOf(db, auth.accountId, id);
  return toRun(row, items, await paidOtherwise(db, auth.accountId, items));
}

/** The file as generated: the same bytes on every download. */
export async function runFile(
  db: Db,
  auth: AuthContext,
  id: number,
  kind: SepaRun['kind'],
): Promise<{ xml: string; name: string }> {
  const row = await runOf(db, auth, id, kind);
  return { xml: row.file, name: `${row.message_id}.xml` };
}

// ---- mandates ----------------------------------------------------------------------------

/** What the next collection on the mandate reports as amended; null when nothing is. */
function amendmentOf(r: SepaMandateRow): MandateAmendment | null {
  if (!r.original_reference && !r.original_iban && !r.original_debtor_agent) return null;
  return {
    original_reference: r.original_reference,
    original_iban: r.original_iban,
    new_debtor_bank: r.original_debtor_agent === 'SMNDA',
  };
}

/** A mandate write, audited in its transaction as done by the token's user through its integration. */
const audit = (db: Db, auth: AuthContext, action: string, id: number, detail: Record<string, unknown>) =>
  recordAudit(db, {
    accountId: auth.accountId,
    actorUserId: auth.userId,
    actorKind: 'token',
    action,
    targetType: 'sepa_mandate',
    targetId: id,
    detail: { integration_id: auth.integrationId, ...detail },
  });

export function toMandate(r: SepaMandateRow): SepaMandate {
  const pending = amendmentOf(r);
  return {
    id: r.id,
    client_id: r.client_id,
    reference: r.reference,
    signed_on: r.signed_on,
    iban: r.iban,
    bic: r.bic,
    scheme: r.scheme as SepaMandate['scheme'],
    sequence: r.sequence as SepaMandate['sequence'],
    status: r.status as SepaMandate['status'],
    revoked_at: r.revoked_at,
    debtor_name: r.debtor_name,
    pending_amendment: pending && {
      original_reference: pending.original_reference,
      original_iban: pending.original_iban,
      debtor_bank_changed: pending.new_debtor_bank,
    },
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

async function assertClient(db: Db, auth: AuthContext, clientId: number): Promise<void> {
  if ((await readModel.clientName(db, auth.accountId, clientId)) === undefined) throw notFound('Client');
}

export async function createMandate(
  db: Db,
  auth: AuthContext,
  body: SepaMandateCreate,
  params: { id: number },
): Promise<SepaMandate> {
  await assertClient(db, auth, params.id);
  const errors: FieldError[] = [];
  if (body.signed_on > todayIso()) errors.push({ field: 'signed_on', message: 'must not be in the future' });
  const fields = checkMandateFields(body, errors);
  if (errors.length > 0) throw validationFailed(errors);
  return transact(db, async (trx) => {
    await referenceFree(trx, auth, body.reference);
    const now = nowIso();
    const row = await takenIs409(
      body.reference,
      repo.insertMandate(trx, {
        account_id: auth.accountId,
        client_id: params.id,
        reference: body.reference,
        signed_on: body.signed_on,
        iban: fields.iban!,
        bic: fields.bic ?? null,
        scheme: body.scheme ?? 'CORE',
        sequence: body.sequence ?? 'first',
        status: 'active',
        revoked_at: null,
        debtor_name: fields.debtor_name ?? null,
        original_reference: null,
        original_iban: null,
        original_debtor_agent: null,
        created_at: now,
        updated_at: now,
      }),
    );
    await audit(trx, auth, 'sepa_mandate.create', row.id, {
      client_id: row.client_id,
      reference: row.reference,
    });
    return toMandate(row);
  });
}

/** The reference, IBAN, BIC and name given, checked and in their stored form. */
function checkMandateFields(
  body: { reference?: string; iban?: string; bic?: string | null; debtor_name?: string | null },
  errors: FieldError[],
): { iban?: string; bic?: string | null; debtor_name?: string | null } {
  const out: { iban?: string; bic?: string | null; debtor_name?: string | null } = {};
  if (body.reference !== undefined && !isMandateReference(body.reference))
    errors.push({
      field: 'reference',
      message:
        "may hold only letters, digits and + ? / - : ( ) . , ' (no blanks), not start with / nor hold //",
    });
  if (body.iban !== undefined) {
    out.iban = normalizeIdentifier(body.iban);
    if (!isValidIban(out.iban))
      errors.push({
        field: 'iban',
        message: 'is not a valid IBAN: the country’s length or the check digits do not match',
      });
  }
  if (body.bic !== undefined) {
    out.bic = body.bic ? normalizeIdentifier(body.bic) : null;
    if (out.bic && !isValidBic(out.bic))
      errors.push({ field: 'bic', message: 'is not a valid BIC (8 or 11 characters)' });
  }
  if (body.debtor_name !== undefined) {
    out.debtor_name = body.debtor_name === null ? null : body.debtor_name.trim();
    if (out.debtor_name !== null && sepaText(out.debtor_name, 70) === '')
      errors.push({ field: 'debtor_name', message: 'must hold letters or digits a SEPA file can carry' });
  }
  return out;
}

/** The unique index on the reference decided a race of two writes: 409 as the check answers. */
async function takenIs409<T>(reference: string, write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError('already_exists', `Another mandate has the reference ${reference}`);
    throw err;
  }
}

/** 409 when another mandate of the account has the reference (the unique index decides a race). */
async function referenceFree(db: Db, auth: AuthContext, reference: string, self?: number): Promise<void> {
  const taken = await repo.mandateByReference(db, auth.accountId, reference);
  if (taken && taken.id !== self)
    throw new AppError('already_exists', `Mandate ${taken.id} has the reference ${reference}`);
}

/**
 * Amends a mandate: a new reference, a new debtor account, the holder's name. A mandate the
 * debtor's bank has seen (collected on, here or before) keeps what it saw until the next file
 * reports the amendment once (`AmdmntInfDtls`): the reference and the IBAN before, and `SMNDA`
 * when the new IBAN is at another bank, which also makes that collection a FRST (see
 * docs/banking.md). Changing a value back to what the bank saw leaves nothing to report.
 */
export async function amendMandate(
  db: Db,
  auth: AuthContext,
  id: number,
  body: SepaMandateUpdate,
): Promise<SepaMandate> {
  return transact(db, async (trx) => {
    const row = await repo.findMandate(trx, auth.accountId, id);
    if (!row) throw notFound('SEPA mandate');
    const errors: FieldError[] = [];
    const fields = checkMandateFields(body, errors);
    if (errors.length > 0) throw validationFailed(errors);
    if (row.status === 'revoked')
      throw new AppError('conflict', `SEPA mandate ${id} is revoked: record a new mandate instead`);
    if (body.reference !== undefined && body.reference !== row.reference)
      await referenceFree(trx, auth, body.reference, id);
    const next = {
      reference: body.reference ?? row.reference,
      iban: fields.iban ?? row.iban,
      bic: fields.bic !== undefined ? fields.bic : row.bic,
      debtor_name: fields.debtor_name !== undefined ? fields.debtor_name : row.debtor_name,
    };
    const changes: Partial<SepaMandateRow> = {};
    for (const key of ['reference', 'iban', 'bic', 'debtor_name'] as const)
      if (next[key] !== row[key]) Object.assign(changes, { [key]: next[key] });
    if (Object.keys(changes).length === 0) return toMandate(row);
    if (row.sequence === 'recurring' || (await repo.mandateUsed(trx, auth.accountId, id))) {
      // What the debtor's bank saw: the values before the first amendment not yet reported.
      const seenReference = row.original_reference ?? row.reference;
      const seenIban = row.original_iban ?? row.iban;
      changes.original_reference = next.reference === seenReference ? null : seenReference;
      changes.original_iban = next.iban === seenIban ? null : seenIban;
      changes.original_debtor_agent =
        changes.original_iban === null ||
        sameDebtorBank({ iban: seenIban, bic: row.bic }, { iban: next.iban, bic: next.bic })
          ? null
          : 'SMNDA';
      // Another bank: the rulebook's first collection at it (see docs/banking.md).
      if (changes.original_debtor_agent === 'SMNDA') changes.sequence = 'first';
    }
    const now = nowIso();
    await takenIs409(
      next.reference,
      repo.updateMandate(trx, auth.accountId, id, { ...changes, updated_at: now }),
    );
    // The names of the fields changed, never the bank details themselves (as every audit entry).
    const changed = (['reference', 'iban', 'bic', 'debtor_name'] as const).filter((k) => k in changes);
    await audit(trx, auth, 'sepa_mandate.amend', id, { changed, reference: next.reference });
    return toMandate({ ...row, ...changes, updated_at: now });
  });
}

export async function listMandates(
  db: Db,
  auth: AuthContext,
  clientId: number,
  q: MandateListQuery,
): Promise<Page<SepaMandateRow>> {
  await assertClient(db, auth, clientId);
  return repo.mandatesOfClient(db, auth.accountId, clientId, q);
}

export async function getMandate(db: Db, auth: AuthContext, id: number): Promise<SepaMandate> {
  const row = await repo.findMandate(db, auth.accountId, id);
  if (!row) throw notFound('SEPA mandate');
  return toMandate(row);
}

/** A revoked mandate collects nothing more (409 when revoked already). */
export async function revokeMandate(db: Db, auth: AuthContext, id: number): Promise<SepaMandate> {
  return transact(db, async (trx) => {
    const row = await repo.findMandate(trx, auth.accountId, id);
    if (!row) throw notFound('SEPA mandate');
    if (row.status === 'revoked') throw new AppError('conflict', `SEPA mandate ${id} is revoked already`);
    const now = nowIso();
    await repo.updateMandate(trx, auth.accountId, id, {
      status: 'revoked',
      revoked_at: now,
      updated_at: now,
    });
    await audit(trx, auth, 'sepa_mandate.revoke', id, { reference: row.reference });
    return toMandate({ ...row, status: 'revoked', revoked_at: now, updated_at: now });
  });
}
