import type { PdfDocument } from './types.js';

/**
 * Renders a document to PDF bytes. Booked invoices and credits embed the Factur-X XML.
 * (Being implemented: this placeholder keeps the interface stable meanwhile.)
 */
export async function renderDocumentPdf(_doc: PdfDocument): Promise<Buffer> {
  throw new Error('renderDocumentPdf is not implemented yet');
}

/** EN 16931 Cross Industry Invoice XML (Factur-X profile EN 16931) of a document. */
export function buildFacturX(_doc: PdfDocument): string {
  throw new Error('buildFacturX is not implemented yet');
}
