/**
 * The rules of mailbox intake, free of IMAP and the database: which senders are taken, which
 * parts of a message are documents, and how long a broken mailbox waits before it is tried
 * again.
 */

/** A MIME part as an IMAP server describes it (BODYSTRUCTURE), the fields used here. */
export interface MimeNode {
  part?: string;
  type: string;
  parameters?: Record<string, string>;
  disposition?: string;
  dispositionParameters?: Record<string, string>;
  size?: number;
  childNodes?: MimeNode[];
}

/** A part to download and take as a document. */
export interface DocumentPart {
  /** IMAP part number ("2", "1.2"); "1" for the body of a message of one part. */
  part: string;
  filename: string;
  contentType: string;
  size: number;
}

const DOCUMENT_TYPES = new Set([
  'application/pdf',
  'application/xml',
  'text/xml',
  'image/png',
  'image/jpeg',
  'image/jpg',
  'image/tiff',
]);
const DOCUMENT_EXTENSIONS: Record<string, string> = {
  pdf: 'application/pdf',
  xml: 'application/xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  tif: 'image/tiff',
  tiff: 'image/tiff',
};

const extensionOf = (name: string) => name.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? '';

/**
 * The parts of a message that are documents: PDFs, XML (an e-invoice, also as the body itself)
 * and images, attached or inline; text and HTML bodies, signatures and the like are not. A
 * generic type (`application/octet-stream`) counts by its file name. Images inline without a
 * file name (logos in an HTML signature) are left out.
 */
export function documentParts(root: MimeNode): DocumentPart[] {
  const found: DocumentPart[] = [];
  const walk = (node: MimeNode, index: number) => {
    if (node.childNodes?.length) {
      for (const [i, child] of node.childNodes.entries()) walk(child, i);
      return;
    }
    const type = node.type.toLowerCase();
    const name = node.dispositionParameters?.filename ?? node.parameters?.name ?? '';
    const byName = DOCUMENT_EXTENSIONS[extensionOf(name)];
    let contentType: string | undefined;
    if (DOCUMENT_TYPES.has(type)) contentType = type === 'image/jpg' ? 'image/jpeg' : type;
    else if (type === 'application/octet-stream' && byName) contentType = byName;
    if (!contentType) return;
    const attached = node.disposition?.toLowerCase() === 'attachment';
    if (contentType.startsWith('image/') && !attached && !name) return;
    const ext = Object.entries(DOCUMENT_EXTENSIONS).find(([, t]) => t === contentType)?.[0] ?? 'bin';
    found.push({
      part: node.part ?? '1',
      filename: name || `document-${found.length + 1}-${index + 1}.${ext}`,
      contentType,
      size: node.size ?? 0,
    });
  };
  walk(root, 0);
  return found;
}

/**
 * Whether a sender is taken: an empty list takes everyone; an entry is an address
 * (`billing@supplier.de`) or a domain (`supplier.de` or `@supplier.de`, its subdomains too).
 * Compared without case.
 */
export function senderAllowed(sender: string | undefined, allowList: readonly string[]): boolean {
  if (allowList.length === 0) return true;
  const address = (sender ?? '').trim().toLowerCase();
  const at = address.lastIndexOf('@');
  if (at < 1) return false;
  const domain = address.slice(at + 1);
  return allowList.some((raw) => {
    const entry = raw.trim().toLowerCase();
    if (entry.includes('@') && !entry.startsWith('@')) return entry === address;
    const d = entry.replace(/^@/, '');
    return domain === d || domain.endsWith(`.${d}`);
  });
}

/** Waits after consecutive failures: 1, 2, 4 … minutes, at most an hour. */
export function retryDelayMs(failures: number, baseMs = 60_000, maxMs = 3_600_000): number {
  if (failures <= 0) return 0;
  return Math.min(maxMs, baseMs * 2 ** Math.min(failures - 1, 20));
}

/** A message id as the key of a taken message: without angle brackets and blanks, at most 500 characters. */
export function messageKey(messageId: string | undefined, fallback: string): string {
  const id = (messageId ?? '').trim().replace(/^<|>$/g, '');
  return (id || fallback).slice(0, 500);
}
