import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import { prepared } from '../../db/prepared.js';

/** What a document kept once rendered is (see migration 2026_12_07_994). */
export type KeptKind = 'outgoing_invoice' | 'dunning_letter';
export type KeptFormat = 'pdf' | 'cii' | 'ubl';

export interface KeptDocument {
  filename: string;
  content_type: string;
  sha256: string;
  data: Buffer;
}

/** A kept document without its bytes. */
export type KeptHead = Omit<KeptDocument, 'data'>;

export interface KeptKey {
  kind: KeptKind;
  id: number;
  format: KeptFormat;
}

const COLUMNS = ['k.filename', 'k.content_type', 'k.sha256', 'k.data'] as const;
const HEAD = ['k.filename', 'k.content_type', 'k.sha256'] as const;

const byKey = prepared(4, (db: Db, accountId: number, kind: string, id: number, format: string) =>
  db
    .selectFrom('kept_documents as k')
    .select(COLUMNS)
    .where('k.account_id', '=', accountId)
    .where('k.kind', '=', kind)
    .where('k.document_id', '=', id)
    .where('k.format', '=', format),
);

const headOf = prepared(4, (db: Db, accountId: number, kind: string, id: number, format: string) =>
  db
    .selectFrom('kept_documents as k')
    .select(HEAD)
    .where('k.account_id', '=', accountId)
    .where('k.kind', '=', kind)
    .where('k.document_id', '=', id)
    .where('k.format', '=', format),
);

/**
 * A live invoice's kept document in one read: an invoice deleted since answers 404 as its
 * document routes always have, so the invoice's row is part of the read.
 */
const ofLiveInvoice = prepared(3, (db: Db, accountId: number, id: number, format: string) =>
  db
    .selectFrom('kept_documents as k')
    .innerJoin('outgoing_invoices as i', (j) =>
      j.onRef('i.account_id', '=', 'k.account_id').onRef('i.id', '=', 'k.document_id'),
    )
    .select(HEAD)
    .where('k.account_id', '=', accountId)
    .where('k.kind', '=', sql.lit('outgoing_invoice'))
    .where('k.document_id', '=', id)
    .where('k.format', '=', format)
    .where('i.deleted_at', 'is', null),
);

export async function findKept(db: Db, accountId: number, key: KeptKey): Promise<KeptDocument | undefined> {
  return (await byKey(db, accountId, key.kind, key.id, key.format))[0];
}

export async function findKeptHead(db: Db, accountId: number, key: KeptKey): Promise<KeptHead | undefined> {
  return (await headOf(db, accountId, key.kind, key.id, key.format))[0];
}

export async function findKeptOfLiveInvoice(
  db: Db,
  accountId: number,
  id: number,
  format: KeptFormat,
): Promise<KeptHead | undefined> {
  return (await ofLiveInvoice(db, accountId, id, format))[0];
}

/** Keeps the document unless one is kept already; true when this one was kept. */
export async function insertKept(
  db: Db,
  accountId: number,
  key: KeptKey,
  doc: KeptDocument,
): Promise<boolean> {
  const inserted = await db
    .insertInto('kept_documents')
    .values({ account_id: accountId, kind: key.kind, document_id: key.id, format: key.format, ...doc })
    .onConflict((oc) => oc.columns(['account_id', 'kind', 'document_id', 'format']).doNothing())
    .returning('document_id')
    .executeTakeFirst();
  return inserted !== undefined;
}
