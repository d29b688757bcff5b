import { isUniqueViolation } from '../../db/faults.js';
import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import type { AuthContext } from '../../plugins/auth.js';
import { toAppError } from '../../shared/db-errors.js';
import { AppError, validationFailed } from '../../shared/errors.js';
import { dataPart } from '../../shared/http.js';
import type { PdfDocument, PdfParty } from '../../shared/pdf/types.js';
import { nowIso, todayIso } from '../../shared/time.js';
import { validatorCompiler } from '../../shared/validation.js';
import { accountProfile, numberFormatFor } from '../account/profile.public.js';
import { assertPeriodOpen, openBookingDate } from '../exports/exports.public.js';
import { storeFile, type Upload } from '../files/files.public.js';
import { legalCompletenessErrors } from './booking.domain.js';
import {
  addDays,
  bookingRefusal,
  counterYear,
  effectiveDueDate,
  formatInvoiceNumber,
  numberKind,
} from './invoices.domain.js';
import { findAccount, findClientRow } from './invoices.read-model.js';
import type { InvoiceRow } from './invoices.repository.js';
import * as repo from './invoices.repository.js';
import { type BookBody, ExternalInvoiceData } from './invoices.schemas.js';
import { recordInvoiceEvent } from './invoices.service.js';
import {
  checkDates,
  checkReferences,
  documentDefaults,
  documentRow,
  lockWithMaster,
} from './invoices.support.js';
import { loadView, toInvoice } from './invoices.views.js';
import { parseLineItems } from './line-items.js';
import { documentFor } from './pdf.service.js';

const numberTakenError = (n: string) =>
  new AppError('invoice_number_taken', `Invoice number "${n}" is already used in this account`, {
    errors: [{ field: 'invoice_number', message: 'is already taken' }],
  });

/**
 * Assigns the next free number of the account's sequence for this kind of document, inside
 * the caller's transaction. Numbers taken by manual bookings or external uploads are skipped,
 * so the sequence stays unique and, together with them, without gaps.
 */
async function nextNumber(trx: Db, accountId: number, type: string, date: string): Promise<string> {
  const profile = accountProfile(await findAccount(trx, accountId));
  const kind = numberKind(type);
  const format = numberFormatFor(profile, kind);
  const year = counterYear(format, date);
  for (;;) {
    const seq = await repo.nextCounterValue(trx, accountId, kind, year);
    const number = formatInvoiceNumber(format, Number(date.slice(0, 4)), seq);
    if (!(await repo.numberTaken(trx, accountId, number))) return number;
  }
}

/**
 * Books a document. Automatic mode (no `invoice_number`) takes the next number of the
 * sequence; manual mode uses the given one, refused with 409 if the account has it already.
 * Either way the invoice date is fixed (today if unset) and the document is frozen.
 */
export async function bookInvoice(db: Db, auth: AuthContext, id: number, body: BookBody) {
  let row: InvoiceRow;
  try {
    row = await transact(db, async (trx) => {
      const { row: current } = await lockWithMaster(trx, auth.accountId, id);
      const view = await loadView(trx, auth.accountId, current);
      let unbooked = 0;
      if (current.type === 'final' && current.master_id) {
        const siblings = await repo.childrenOf(trx, auth.accountId, [current.master_id]);
        unbooked = siblings.filter((s) => s.id !== current.id && s.status !== 'booked').length;
      }
      const refusal = bookingRefusal({
        type: current.type,
        status: current.status,
        client_id: current.client_id,
        line_count: view.items.length,
        gross: view.totals.gross,
        unbooked_plan_invoices: unbooked,
      });
      if (refusal && refusal.code !== 'validation_failed') throw refusal;
      const [account, client] = await Promise.all([
        findAccount(trx, auth.accountId),
        current.client_id ? findClientRow(trx, auth.accountId, current.client_id) : undefined,
      ]);
      const profile = accountProfile(account);
      // One answer lists everything that is missing: the document's own gaps and the legal ones.
      const errors = [
        ...(refusal?.errors ?? []),
        ...legalCompletenessErrors({
          seller: profile,
          buyer: client,
          invoice: current,
          rates: view.items.map((i) => i.tax_rate),
        }),
      ];
      if (errors.length > 0) {
        throw validationFailed(
          errors,
          `The invoice cannot be booked: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
        );
      }
      // Undated: today, or the first open day when today's month is locked (Festschreibung).
      const date = current.date ?? (await openBookingDate(trx, auth.accountId, todayIso()));
      await assertPeriodOpen(trx, auth.accountId, `Invoice ${id}`, date);
      // Without terms of its own the invoice gets the account's (company profile), fixed now.
      const termDays = current.payment_term_days ?? profile.payment_term_days;
      const dueDate =
        effectiveDueDate({ ...current, date, payment_term_days: termDays }) ?? addDays(date, termDays ?? 0);
      let number = body.invoice_number;
      if (number !== undefined) {
        if (await repo.numberTaken(trx, auth.accountId, number)) throw numberTakenError(number);
      } else {
        number = await nextNumber(trx, auth.accountId, current.type, date);
      }
      const now = nowIso();
      // Without a service period the supply date is the invoice date (the account said so).
      const serviceDate = current.service_period_start || current.service_period_end ? null : date;
      const booked = {
        status: 'booked',
        invoice_number: number,
        date,
        due_date: dueDate,
        payment_term_days: termDays,
        booked_at: now,
        service_date: serviceDate,
      };
      // Freeze what the document shows: later changes to the client or account do not alter it.
      const document = await documentFor(trx, auth.accountId, { ...current, ...booked }, view);
      const done = await repo.updateInvoice(trx, auth.accountId, id, {
        ...booked,
        document: JSON.stringify(document),
        ...partySnapshots(document),
        updated_at: now,
      });
      await recordInvoiceEvent(trx, auth, 'invoice:booked', done);
      return done;
    });
  } catch (err) {
    // Two manual bookings racing for one number: the unique index decides.
    if (isUniqueViolation(err)) throw numberTakenError(body.invoice_number ?? '');
    throw err;
  }
  return toInvoice(await loadView(db, auth.accountId, row));
}

/** The seller and buyer as the booked document names them, kept as JSON on the invoice. */
function partySnapshots(doc: PdfDocument) {
  const party = (p: PdfParty) => ({
    name: p.name,
    street: p.street ?? null,
    zip: p.zip ?? null,
    city: p.city ?? null,
    country_code: p.country_code ?? null,
    vat_id: p.vat_id ?? null,
    tax_number: p.tax_number ?? null,
    email: p.email ?? null,
    phone: p.phone ?? null,
    contact_name: p.attention ?? null,
  });
  return { seller: JSON.stringify(party(doc.seller)), buyer: JSON.stringify(party(doc.buyer)) };
}

const validateExternal = validatorCompiler({
  schema: ExternalInvoiceData,
  method: 'POST',
  url: '/outgoing-invoices/external',
  httpPart: 'body',
}) as ((data: unknown) => boolean) & { errors?: unknown[] };

/** The `data` field of an external upload: JSON of the invoice, validated like a body. */
export function parseExternalData(raw: string | undefined): ExternalInvoiceData {
  const data = dataPart(raw, { required: 'the invoice JSON is required' });
  if (!validateExternal(data)) {
    const err = toAppError(Object.assign(new Error('invalid'), { validation: validateExternal.errors }));
    throw validationFailed(
      (err.errors ?? []).map((e) => ({
        field: e.field === '(root)' ? 'data' : `data.${e.field}`,
        message: e.message,
      })),
    );
  }
  return data as ExternalInvoiceData;
}

/**
 * Stores an invoice made elsewhere, booked under the caller's number, with its PDF. The
 * number must be free; the service's own sequence is neither used nor advanced.
 */
export async function createExternal(db: Db, auth: AuthContext, upload: Upload) {
  const data = parseExternalData(upload.fields.data);
  const lines = parseLineItems(data.line_items, 'data.line_items');
  const type = data.type ?? 'invoice';
  if (type !== 'credit' && data.credited_invoice_id)
    throw validationFailed([
      { field: 'data.credited_invoice_id', message: 'only credits refer to an invoice' },
    ]);
  checkDates(data, 'data.');
  // Stored booked, so checked as booking checks: a credit totals below zero, an invoice not.
  const view = {
    type,
    status: 'open',
    client_id: data.client_id,
    line_count: lines.length,
    gross: repo.lineTotalsColumns(lines).lines_gross,
  };
  const refusal = bookingRefusal(view);
  if (refusal?.errors)
    throw validationFailed(refusal.errors.map((e) => ({ ...e, field: `data.${e.field}` })));
  let row: InvoiceRow;
  try {
    row = await transact(db, async (trx) => {
      const client = await checkReferences(trx, auth.accountId, data, 'data.');
      // Stored booked: its date must lie in an open month (Festschreibung).
      await assertPeriodOpen(trx, auth.accountId, `Invoice ${data.invoice_number}`, data.date);
      if (await repo.numberTaken(trx, auth.accountId, data.invoice_number))
        throw numberTakenError(data.invoice_number);
      const now = nowIso();
      const head = {
        account_id: auth.accountId,
        type,
        status: 'booked',
        client_id: data.client_id,
        date: data.date,
      };
      const values = documentRow(head, data, documentDefaults(data, client), repo.lineTotalsColumns(lines));
      const { row: inserted } = await repo.insertWithLines(
        trx,
        Object.assign(values, { external: 1, invoice_number: data.invoice_number, booked_at: now }),
        lines,
      );
      const file = await storeFile(trx, auth, upload, { type: 'outgoing_invoice', id: inserted.id });
      // The parties as they are now: what an uploaded invoice was issued to, for every later read.
      const document = await documentFor(trx, auth.accountId, inserted);
      const done = await repo.updateInvoice(trx, auth.accountId, inserted.id, {
        file_id: file.id,
        ...partySnapshots(document),
      });
      await recordInvoiceEvent(trx, auth, 'invoice:created', done);
      return done;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw numberTakenError(data.invoice_number);
    throw err;
  }
  return toInvoice(await loadView(db, auth.accountId, row));
}
