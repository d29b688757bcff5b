import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_LIMITS, extractInvoiceData } from '../../src/modules/incoming-invoices/extraction.js';
import { readXmlInvoice, sniffXml } from '../../src/modules/incoming-invoices/xml/index.js';
import { UBL_CREDIT_NOTE } from '../incoming-einvoices.fixtures.js';

describe('XML sniffing', () => {
  it('knows a UBL credit note inside a Peppol envelope, and a UTF-16 file', async () => {
    const wrapped = `<?xml version="1.0"?><StandardBusinessDocument xmlns="http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader"><StandardBusinessDocumentHeader><HeaderVersion>1.0</HeaderVersion></StandardBusinessDocumentHeader>${UBL_CREDIT_NOTE.replace(/^<\?xml[^>]*\?>/, '')}</StandardBusinessDocument>`;
    assert.equal(sniffXml(wrapped).syntax, 'ubl-credit-note');
    const o = readXmlInvoice(wrapped, DEFAULT_LIMITS);
    assert.equal(o.fields.document_type, 'Credit');
    assert.equal(o.fields.invoice_number, 'GS-2026-7');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(UBL_CREDIT_NOTE, 'utf16le')]);
    assert.equal((await extractInvoiceData(utf16, 'application/octet-stream')).fields.gross_total, '119.00');
  });
  it('an invoice root in another namespace is not taken for an invoice', () => {
    assert.equal(sniffXml('<Invoice xmlns="urn:example:other"><ID>1</ID></Invoice>').syntax, undefined);
    assert.deepEqual(
      readXmlInvoice('<Invoice xmlns="urn:example:other"><ID>1</ID></Invoice>', DEFAULT_LIMITS).warnings.map(
        (w) => w.code,
      ),
      ['not_an_invoice'],
    );
  });
});
