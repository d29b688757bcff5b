import { createHash } from 'node:crypto';
import { zipSync } from 'fflate';
import type { Db } from '../../db/index.js';
import { transact } from '../../db/transact.js';
import { AppError, type FieldError, notFound, validationFailed } from '../../shared/errors.js';
import type { Page } from '../../shared/paging.js';
import { nowIso, todayIso } from '../../shared/time.js';
import type { AuthContext } from '../../shared/tokens.js';
import { getAccountProfile } from '../account/account.service.js';
import { type AccountingSettings, personalRange } from '../account/profile.public.js';
import { recordAudit } from '../audit/audit.service.js';
import { readBlob } from '../files/files.public.js';
import {
  type Booking,
  BUCHUNGSSTAPEL_COLUMNS,
  bookingRow,
  chargeBookings,
  DEBITOREN_KREDITOREN_COLUMNS,
  type DocumentImage,
  documentFileName,
  documentGuid,
  documentXml,
  extfFile,
  fiscalYearStart,
  headerLine,
  incomingBooking,
  outgoingBookings,
  type Party,
  partyRow,
  paymentMadeBooking,
  paymentReceivedBooking,
  windows1252,
} from './datev.domain.js';
import * as read from './datev.read-model.js';
import * as repo from './exports.repository.js';
import type { DatevExport, DatevExportCreate } from './exports.schemas.js';
import { monthsOf, wholeMonths } from './periods.domain.js';
import { bookedAmounts } from './vat.domain.js';

export const BOOKINGS_FILE = 'EXTF_Buchungsstapel.csv';
export const PARTIES_FILE = 'EXTF_Debitoren_Kreditoren.csv';
export const DOCUMENT_XML = 'document.xml';

/**
 * The PDF of a booked outgoing invoice, as GET /outgoing-invoices/{id}/pdf serves it (kept
 * once rendered, so the same bytes every time). Handed in where the modules are put together:
 * outgoing invoices check the period lock here, so exports cannot import them.
 */
export type InvoicePdfSource = (
  db: Db,
  auth: AuthContext,
  invoiceId: number,
) => Promise<{ data: Buffer; filename: string }>;

type Image = DocumentImage & { data: Buffer };

interface Counts {
  bookings: number;
  debtors: number;
  creditors: number;
  documents?: number;
}

export function toExport(r: repo.ExportMetaRow): DatevExport {
  const counts = JSON.parse(r.counts) as Counts;
  return {
    id: r.id,
    kind: 'datev',
    date_from: r.date_from,
    date_to: r.date_to,
    locked: r.locked === 1,
    file_name: r.file_name,
    sha256: r.sha256,
    byte_size: r.byte_size,
    bookings: counts.bookings,
    debtors: counts.debtors,
    creditors: counts.creditors,
    documents: counts.documents ?? 0,
    created_by: r.created_by,
    created_at: r.created_at,
    download_url: `/api/v1/exports/${r.id}/download`,
  };
}

/** The range must lie in one fiscal year (DATEV's rule); a lock covers whole months only. */
function checkRange(body: DatevExportCreate, settings: AccountingSettings): void {
  const errors: FieldError[] = [];
  if (body.date_from > body.date_to)
    errors.push({ field: 'date_to', message: 'must not be before date_from' });
  else if (
    fiscalYearStart(body.date_from, settings.fiscal_year_start_month) !==
    fiscalYearStart(body.date_to, settings.fiscal_year_start_month)
  )
    errors.push({
      field: 'date_to',
      message: 'must lie in the fiscal year of date_from (DATEV imports one fiscal year at a time)',
    });
  else if (body.lock && !wholeMonths(body.date_from, body.date_to))
    errors.push({
      field: 'lock',
      message: 'locks whole months: date_from must be a first and date_to a last day of a month',
    });
  if (settings.datev_consultant_number === null)
    errors.push({
      field: 'accounting.datev_consultant_number',
      message: 'is not set in the company profile',
    });
  if (settings.datev_client_number === null)
    errors.push({ field: 'accounting.datev_client_number', message: 'is not set in the company profile' });
  if (errors.length > 0) throw validationFailed(errors);
}

/**
 * The debtor or creditor account of each party, given once and kept: new ones take the next
 * free numbers of DATEV's range for the account length, in the order of their ids.
 */
async function personalNumbers(
  trx: Db,
  accountId: number,
  kind: 'debtor' | 'creditor',
  length: number,
  ids: number[],
): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const known = await repo.personalAccounts(trx, accountId, kind, length, ids);
  for (const k of known) out.set(k.party_id, String(k.number));
  const missing = ids.filter((id) => !out.has(id)).sort((a, b) => a - b);
  if (missing.length === 0) return out;
  const range = personalRange(kind, length);
  let next = ((await repo.highestPersonalAccount(trx, accountId, length, range)) ?? range.from - 1) + 1;
  if (next + missing.length - 1 > range.to)
    throw new AppError('unprocessable', `No ${kind} account numbers are left in ${range.from}–${range.to}`);
  const rows = missing.map((party_id) => ({
    account_id: accountId,
    kind,
    party_id,
    account_length: length,
    number: next++,
  }));
  await repo.insertPersonalAccounts(trx, rows);
  for (const r of rows) out.set(r.party_id, String(r.number));
  return out;
}

const parsed = <T>(json: string | null): T | null => {
  try {
    return json ? (JSON.parse(json) as T) : null;
  } catch {
    return null;
  }
};

interface Files {
  bookings: string;
  parties: string;
  counts: { bookings: number; debtors: number; creditors: number };
}

/** Reads the books of the range and writes the two EXTF files. */
async function buildFiles(
  trx: Db,
  accountId: number,
  s: AccountingSettings,
  from: string,
  to: string,
  createdAt: string,
  locked: boolean,
  links: ReadonlyMap<string, string>,
): Promise<Files> {
  const [docs, received, incoming, made] = await Promise.all([
    read.bookedDocuments(trx, accountId, from, to),
    read.paymentsReceived(trx, accountId, from, to),
    read.incomingBookings(trx, accountId, from, to),
    read.paymentsMade(trx, accountId, from, to),
  ]);
  const clientIds = [
    ...new Set([...docs, ...received].map((d) => d.client_id).filter((x): x is number => x !== null)),
  ];
  const supplierIds = [
    ...new Set([...incoming, ...made].map((d) => d.supplier_id).filter((x): x is number => x !== null)),
  ];
  const debtors = await personalNumbers(trx, accountId, 'debtor', s.account_length, clientIds);
  const creditors = await personalNumbers(trx, accountId, 'creditor', s.account_length, supplierIds);
  const debtor = (id: number | null) => (id === null ? s.accounts.receivables : debtors.get(id)!);
  const creditor = (id: number | null) => (id === null ? s.accounts.payables : creditors.get(id)!);
  const nameOf = (buyer: string | null) =>
    parsed<{ name?: string; vat_id?: string | null; country_code?: string | null }>(buyer);

  const charges = new Map(
    (
      await read.dunningCharges(
        trx,
        accountId,
        docs.map((d) => d.id),
      )
    ).map((c) => [Number(c.charges_invoice_id), c]),
  );
  const bookings: Booking[] = [];
  for (const d of docs) {
    const charge = charges.get(d.id);
    if (charge) {
      const link = links.get(`outgoing_invoice:${d.id}`);
      bookings.push(
        ...chargeBookings(
          {
            number: d.invoice_number ?? String(d.id),
            date: d.date!,
            currency: d.currency,
            debtor: debtor(d.client_id),
            partyName: nameOf(d.buyer)?.name ?? '',
          },
          { fees: Number(charge.fee) + Number(charge.flat_fee), interest: Number(charge.interest) },
          s.accounts,
        ).map((b) => (link ? { ...b, link } : b)),
      );
      continue;
    }
    const amounts = bookedAmounts(d);
    const buyer = nameOf(d.buyer);
    const link = links.get(`outgoing_invoice:${d.id}`);
    bookings.push(
      ...outgoingBookings(
        {
          type: d.type,
          number: d.invoice_number ?? String(d.id),
          date: d.date!,
          currency: d.currency,
          debtor: debtor(d.client_id),
          partyName: buyer?.name ?? '',
          buyerVatId: buyer?.vat_id ?? null,
          buyerCountry: buyer?.country_code ?? null,
          sellerVatId: nameOf(d.seller)?.vat_id ?? null,
          taxes: amounts.taxes,
          deductions: amounts.deductions,
        },
        s.accounts,
      ).map((b) => (link ? { ...b, link } : b)),
    );
  }
  for (const p of received)
    bookings.push(
      paymentReceivedBooking({
        cents: Number(p.amount),
        date: p.date,
        currency: p.currency,
        bank: s.accounts.bank,
        debtor: debtor(p.client_id),
        number: p.invoice_number ?? String(p.invoice_id),
        partyName: nameOf(p.buyer)?.name ?? '',
      }),
    );
  for (const b of incoming) {
    const link = links.get(`incoming_invoice:${b.invoice_id}`);
    const booking = incomingBooking({
      cents: Number(b.amount),
      taxRate: b.tax_rate,
      expense: b.expense,
      creditor: creditor(b.supplier_id),
      date: b.date!,
      number: b.invoice_number ?? `ER${b.invoice_id}`,
      partyName: b.supplier_name ?? '',
      isCredit: b.document_type === 'Credit',
    });
    bookings.push(link ? { ...booking, link } : booking);
  }
  for (const p of made)
    bookings.push(
      paymentMadeBooking({
        cents: Number(p.amount),
        date: p.date,
        bank: s.accounts.bank,
        creditor: creditor(p.supplier_id),
        number: p.invoice_number ?? `ER${p.invoice_id}`,
        partyName: p.supplier_name ?? '',
      }),
    );
  // One order whatever the sources: by date, then as read.
  const ordered = bookings
    .map((b, i) => ({ b, i }))
    .sort((x, y) => x.b.date.localeCompare(y.b.date) || x.i - y.i);

  const [clients, suppliers] = await Promise.all([
    read.clientsById(trx, accountId, clientIds),
    read.suppliersById(trx, accountId, supplierIds),
  ]);
  const parties: Party[] = [
    ...clients.map((c) => ({ ...c, number: debtors.get(c.id)! })),
    ...suppliers.map((c) => ({ ...c, number: creditors.get(c.id)! })),
  ].sort((a, b) => Number(a.number) - Number(b.number));

  const header = {
    createdAt,
    settings: s,
    fiscalYearStart: fiscalYearStart(from, s.fiscal_year_start_month),
    dateFrom: from,
    dateTo: to,
    label: `Export ${from.replaceAll('-', '')}-${to.replaceAll('-', '')}`,
    locked,
  };
  return {
    bookings: extfFile(
      headerLine({ ...header, category: 21 }),
      BUCHUNGSSTAPEL_COLUMNS,
      ordered.map((x) => bookingRow(x.b)),
    ),
    parties: extfFile(
      headerLine({ ...header, category: 16 }),
      DEBITOREN_KREDITOREN_COLUMNS,
      parties.map(partyRow),
    ),
    counts: { bookings: ordered.length, debtors: clients.length, creditors: suppliers.length },
  };
}

/**
 * The documents of the range's bookings (Belegbilder): each booked outgoing document's PDF and
 * each incoming invoice's stored file, by `kind:id`, with a GUID derived from the account and
 * the document, so every export of the same books names and links them alike. Read before the
 * export's transaction: a first render keeps the PDF in a transaction of its own.
 */
async function documentImages(
  db: Db,
  auth: AuthContext,
  from: string,
  to: string,
  pdfOf: InvoicePdfSource,
): Promise<Map<string, Image>> {
  const out = new Map<string, Image>();
  for (const d of await read.bookedDocuments(db, auth.accountId, from, to)) {
    const pdf = await pdfOf(db, auth, d.id);
    const key = `outgoing_invoice:${d.id}`;
    out.set(key, {
      guid: documentGuid(auth.accountId, key),
      type: 2,
      name: documentFileName('AR', d.id, d.invoice_number, 'pdf'),
      data: pdf.data,
    });
  }
  const incoming = new Map<number, { invoice_id: number; number: string | null; file_id: number }>();
  for (const b of await read.incomingBookings(db, auth.accountId, from, to))
    if (b.file_id !== null)
      incoming.set(b.invoice_id, { invoice_id: b.invoice_id, number: b.invoice_number, file_id: b.file_id });
  const names = new Map(
    (
      await read.filesById(
        db,
        auth.accountId,
        [...incoming.values()].map((i) => i.file_id),
      )
    ).map((f) => [f.id, f.name]),
  );
  for (const i of incoming.values()) {
    const data = await readBlob(db, i.file_id);
    const name = names.get(i.file_id);
    if (!data || name === undefined) continue;
    const key = `incoming_invoice:${i.invoice_id}`;
    out.set(key, {
      guid: documentGuid(auth.accountId, key),
      type: 1,
      name: documentFileName(
        'ER',
        i.invoice_id,
        i.number,
        name.includes('.') ? name.split('.').pop()! : 'pdf',
      ),
      data,
    });
  }
  return out;
}

/**
 * Writes the DATEV export of a date range (and, with `lock`, locks its months for good, in the
 * same transaction), keeps the ZIP and answers its record. A range whose months were all
 * locked before is exported with the time of its lock, so every export of it is the same file.
 */
export async function createDatevExport(
  db: Db,
  auth: AuthContext,
  body: DatevExportCreate,
  pdfOf?: InvoicePdfSource,
): Promise<DatevExport> {
  const settings = (await getAccountProfile(db, auth.accountId)).accounting;
  checkRange(body, settings);
  const months = monthsOf(body.date_from, body.date_to);
  const images =
    body.documents && pdfOf
      ? await documentImages(db, auth, body.date_from, body.date_to, pdfOf)
      : new Map<string, Image>();
  const links = new Map([...images].map(([key, image]) => [key, image.guid]));
  const row = await transact(db, async (trx) => {
    await repo.periodGuard(trx, auth.accountId, true);
    const locks = await repo.lockedPeriods(trx, auth.accountId, months);
    const allLocked = locks.length === months.length && wholeMonths(body.date_from, body.date_to);
    const createdAt = allLocked
      ? locks
          .map((l) => new Date(l.locked_at).toISOString())
          .sort()
          .at(-1)!
      : nowIso();
    const locked = allLocked || body.lock === true;
    const files = await buildFiles(
      trx,
      auth.accountId,
      settings,
      body.date_from,
      body.date_to,
      createdAt,
      locked,
      links,
    );
    const mtime = new Date(createdAt);
    const entries: Record<string, [Uint8Array, { mtime: Date }]> = {
      [BOOKINGS_FILE]: [windows1252(files.bookings), { mtime }],
      [PARTIES_FILE]: [windows1252(files.parties), { mtime }],
    };
    if (images.size > 0) {
      const list = [...images.values()];
      const xml = documentXml(
        { createdAt, description: `Belege ${body.date_from} bis ${body.date_to}` },
        list,
      );
      entries[DOCUMENT_XML] = [Buffer.from(xml, 'utf8'), { mtime }];
      for (const image of list) entries[image.name] = [image.data, { mtime }];
    }
    const zip = Buffer.from(zipSync(entries, { level: 6, mtime }));
    const sha256 = createHash('sha256').update(zip).digest('hex');
    const { id } = await repo.insertExport(trx, {
      account_id: auth.accountId,
      date_from: body.date_from,
      date_to: body.date_to,
      locked: locked ? 1 : 0,
      file_name: `DATEV_${body.date_from}_${body.date_to}.zip`,
      sha256,
      byte_size: zip.length,
      data: zip,
      counts: JSON.stringify({ ...files.counts, documents: images.size }),
      created_by: auth.userId,
    });
    if (body.lock) await repo.insertLocks(trx, auth.accountId, months, auth.userId, id, createdAt);
    await recordAudit(trx, {
      accountId: auth.accountId,
      actorUserId: auth.userId,
      actorKind: 'token',
      action: body.lock ? 'datev_export.create_and_lock' : 'datev_export.create',
      targetType: 'datev_export',
      targetId: id,
      detail: {
        date_from: body.date_from,
        date_to: body.date_to,
        sha256,
        ...(body.lock ? { locked: months } : {}),
      },
    });
    return (await repo.findExport(trx, auth.accountId, id))!;
  });
  return toExport(row);
}

export async function listExports(
  db: Db,
  auth: AuthContext,
  q: { page?: number; per_page?: number },
): Promise<Page<repo.ExportMetaRow>> {
  return repo.listExports(db, auth.accountId, q);
}

export async function getExport(db: Db, auth: AuthContext, id: number): Promise<DatevExport> {
  const row = await repo.findExport(db, auth.accountId, id);
  if (!row) throw notFound('Export');
  return toExport(row);
}

/** The ZIP of an export, the bytes it was written with. */
export async function exportFile(db: Db, auth: AuthContext, id: number) {
  const row = await repo.findExport(db, auth.accountId, id);
  if (!row) throw notFound('Export');
  return { data: Buffer.from(row.data), filename: row.file_name, sha256: row.sha256 };
}

type LockRow = Awaited<ReturnType<typeof repo.listLocks>>[number];

const toLock = (l: LockRow) => ({
  period: l.period,
  locked_at: new Date(l.locked_at).toISOString(),
  locked_by: l.locked_by,
  export_id: l.export_id,
});

/** The locked months of the account, oldest first. */
export async function listLockedPeriods(db: Db, auth: AuthContext) {
  return (await repo.listLocks(db, auth.accountId)).map(toLock);
}

/**
 * Locks a month for good without an export (Festschreibung). Idempotent: a month locked
 * already (by an export, an earlier call, or a call racing this one) answers its lock as it
 * is, `created` false, and changes nothing. A month that has not begun cannot be locked.
 */
export async function lockPeriod(
  db: Db,
  auth: AuthContext,
  period: string,
  via: 'token' | 'user' = 'token',
): Promise<{ created: boolean; lock: ReturnType<typeof toLock> }> {
  if (period > todayIso().slice(0, 7))
    throw validationFailed([
      { field: 'period', message: 'has not begun yet; only a month under way or past is locked' },
    ]);
  return transact(db, async (trx) => {
    await repo.periodGuard(trx, auth.accountId, true);
    const created = await repo.insertLocks(trx, auth.accountId, [period], auth.userId, null, nowIso());
    if (created)
      await recordAudit(trx, {
        accountId: auth.accountId,
        actorUserId: auth.userId,
        actorKind: via,
        action: 'accounting_period.lock',
        targetType: 'accounting_period',
        targetId: period,
        detail: { period },
      });
    const [lock] = await repo.listLocks(trx, auth.accountId, period);
    return { created, lock: toLock(lock!) };
  });
}
