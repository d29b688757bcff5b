import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/**
 * The hybrid e-invoice PDFs of other producers (corpus/invoices-dev, read where it lies, never
 * copied into the repository), as documents for the text task (the embedded XML removed) with
 * the manifest's truth, split into a development and a held-out part.
 */
export interface CorpusPdf {
  name: string;
  producer: string;
  heldOut: boolean;
  /** The PDF with its attachment made unreachable: what a supplier without e-invoicing sends. */
  pdf: Buffer;
  truth: Record<string, string>;
}

/**
 * Held out = the first hex digit of the SHA-256 of the file's base name is 0–5 (about 3 in 8).
 * Fixed by the name, so adding files never moves an old one between the parts.
 */
export const isHeldOut = (name: string): boolean =>
  Number.parseInt(createHash('sha256').update(basename(name)).digest('hex')[0]!, 16) < 6;

/**
 * Same-length renames of the keys that lead to an attachment (`/EmbeddedFiles` in the name
 * tree, the stream type `/EmbeddedFile`, `/AF`), so the cross-reference offsets stay valid and
 * no reader finds the XML — the effect of `qpdf --remove-attachment` without qpdf. Only for
 * PDFs whose dictionaries are not inside object streams (checked: callers verify the result).
 */
export function stripAttachments(pdf: Buffer): Buffer {
  const text = pdf.toString('latin1');
  const out = text
    .replaceAll('/EmbeddedFiles', '/EmbeddedFileZ')
    .replace(/\/EmbeddedFile(?=[\s/>\]])/g, '/EmbeddedFilX')
    .replace(/\/AF(?=[\s[])/g, '/AX');
  return Buffer.from(out, 'latin1');
}

interface ManifestDoc {
  file: string;
  producer: string;
  truth: Record<string, string | number | null>;
}

/** The corpus's PDFs, or [] when the folder is not there. */
export function corpusPdfs(dir: string): CorpusPdf[] {
  const manifest = join(dir, 'manifest.json');
  if (!existsSync(manifest)) return [];
  const docs = (JSON.parse(readFileSync(manifest, 'utf8')) as { documents: ManifestDoc[] }).documents;
  return docs.map((d) => {
    const truth: Record<string, string> = {};
    for (const [k, v] of Object.entries(d.truth)) if (typeof v === 'string') truth[k] = v;
    // The letterhead shows the name's last line ("GLN …\nLief-Nr …\nMUSTERLIEFERANT GMBH").
    if (truth.supplier_name?.includes('\n'))
      truth.supplier_name_alt = truth.supplier_name.split('\n').at(-1)!.trim();
    return {
      name: basename(d.file),
      producer: d.producer,
      heldOut: isHeldOut(d.file),
      pdf: stripAttachments(readFileSync(join(dir, d.file))),
      truth,
    };
  });
}
