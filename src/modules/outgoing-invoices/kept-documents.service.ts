import { versionsOf } from '../../db/data-version.js';
import type { Db } from '../../db/index.js';
import { transactOne } from '../../db/transact.js';
import {
  findKept,
  findKeptHead,
  findKeptOfLiveInvoice,
  insertKept,
  type KeptDocument,
  type KeptFormat,
  type KeptHead,
  type KeptKey,
} from './kept-documents.repository.js';
import type { PdfBytes } from './pdf.service.js';

export type { KeptKey } from './kept-documents.repository.js';

/**
 * Booked documents are served, not rendered (issue 44): a booked invoice's or credit's PDF
 * and e-invoices and a dunning letter's PDF never change, so they are rendered at their first
 * request and kept in the database (`kept_documents`, never pruned); each later request — a
 * download, a mail attachment — reads those very bytes. Drafts are rendered on every request.
 */
const asBytes = (k: KeptDocument): PdfBytes => ({ data: k.data, filename: k.filename, sha256: k.sha256 });

/**
 * The bytes of documents served lately, by their SHA-256: content kept by its hash never goes
 * stale, so a download reads only the small row that names the hash (which also says that the
 * document, and for an invoice the invoice, is there for this account) and sends the bytes
 * from here; the blob is read once per process. Bounded (least recently used go first).
 */
const BYTES_MAX = 16 * 1024 * 1024;
const bytesByHash = new Map<string, Buffer>();
let bytesHeld = 0;

function remember(sha256: string, data: Buffer): void {
  if (data.length > BYTES_MAX / 8 || bytesByHash.has(sha256)) return;
  bytesByHash.set(sha256, data);
  bytesHeld += data.length;
  for (const [k, v] of bytesByHash) {
    if (bytesHeld <= BYTES_MAX) break;
    bytesByHash.delete(k);
    bytesHeld -= v.length;
  }
}

async function withBytes(
  db: Db,
  accountId: number,
  key: KeptKey,
  head: KeptHead,
): Promise<PdfBytes | undefined> {
  const held = bytesByHash.get(head.sha256);
  if (held) {
    // Most recently used: last in the map's order.
    bytesByHash.delete(head.sha256);
    bytesByHash.set(head.sha256, held);
    return { data: held, filename: head.filename, sha256: head.sha256 };
  }
  const kept = await findKept(db, accountId, key);
  if (!kept) return undefined;
  const data = Buffer.from(kept.data);
  remember(kept.sha256, data);
  return { ...asBytes(kept), data };
}

export async function keptDocument(db: Db, accountId: number, key: KeptKey): Promise<PdfBytes | undefined> {
  const head = await findKeptHead(db, accountId, key);
  return head && withBytes(db, accountId, key, head);
}

/**
 * Heads of live invoices' kept documents, each under the version of `outgoing_invoices` read
 * before it (plugins/page-cache.ts reasons the same way). A kept document never changes and
 * is never removed while its invoice stays; only a write to the invoices (a deletion) can
 * make the answer a 404. While that table's version is the one read before the head was, no
 * such write was committed since, so the head answers without a read. Per database (a test
 * process has several, whose ids and versions coincide); bounded, oldest first.
 */
const HEADS_MAX = 10_000;
const headsOf = new WeakMap<Db, Map<string, { version: string; head: KeptHead }>>();

/**
 * A live (not deleted) invoice's kept document: one small read, the bytes as a rule from memory.
 * `dataVersion`: the table versions read with the request's authentication (`req.dataVersion`),
 * when there are any; with them a repeated download reads nothing while no invoice was written.
 */
export async function keptInvoiceDocument(
  db: Db,
  accountId: number,
  id: number,
  format: KeptFormat,
  dataVersion?: string,
): Promise<PdfBytes | undefined> {
  const version = dataVersion === undefined ? undefined : versionsOf(dataVersion, ['outgoing_invoices']);
  let heads = headsOf.get(db);
  if (!heads) {
    heads = new Map();
    headsOf.set(db, heads);
  }
  const key = `${accountId} ${id} ${format}`;
  const memo = version === undefined ? undefined : heads.get(key);
  let head = memo?.version === version ? memo?.head : undefined;
  if (!head) {
    head = await findKeptOfLiveInvoice(db, accountId, id, format);
    if (head && version !== undefined) {
      heads.delete(key);
      heads.set(key, { version, head });
      if (heads.size > HEADS_MAX) heads.delete(heads.keys().next().value!);
    }
  }
  return head && withBytes(db, accountId, { kind: 'outgoing_invoice', id, format }, head);
}

/**
 * Keeps a document just rendered and answers what is kept: when two first requests render at
 * once, the one kept first is the one both answer, so no two answers ever differ.
 */
export async function keepDocument(
  db: Db,
  accountId: number,
  key: KeptKey,
  bytes: PdfBytes,
  contentType: string,
): Promise<PdfBytes> {
  const doc = { filename: bytes.filename, content_type: contentType, sha256: bytes.sha256, data: bytes.data };
  if (await transactOne(db, (trx) => insertKept(trx, accountId, key, doc))) return bytes;
  const first = await findKept(db, accountId, key);
  return first ? asBytes(first) : bytes;
}
