import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LIMITS, extractInvoiceData } from '../../src/modules/incoming-invoices/extraction.js';
import { readXmlInvoice, sniffXml } from '../../src/modules/incoming-invoices/xml/index.js';
import { CORPUS, UBL_CREDIT_NOTE } from '../incoming-einvoices.fixtures.js';

const root = fileURLToPath(CORPUS);
const files: string[] = [];
const walk = (dir: string) => {
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith('.xml')) files.push(p);
  }
};
walk(root);

const first = (xml: string, re: RegExp) => re.exec(xml)?.[1];
/** Number, date and gross as the file says them, read with plain patterns. */
function truth(xml: string) {
  if (xml.includes('CrossIndustryInvoice')) {
    const head = first(xml, /<rsm:ExchangedDocument>([\s\S]*?)<\/rsm:ExchangedDocument>/)!;
    const d = first(head, /format="102">(\d{8})</)!;
    return {
      number: first(head, /<ram:ID>([^<]+)</),
      date: `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}`,
      gross: Number(first(xml, /<ram:GrandTotalAmount[^>]*>([^<]+)</)),
    };
  }
  return {
    number: first(xml, /<cbc:ID>([^<]+)</),
    date: first(xml, /<cbc:IssueDate>([^<]+)</),
    gross: Number(first(xml, /<cbc:TaxInclusiveAmount[^>]*>([^<]+)</)),
  };
}

describe('the XRechnung test suite', () => {
  it('has its 86 documents beside the repository', () => assert.equal(files.length, 86));
  it('every document is read fully right (number, date, gross), whatever the declared type', async () => {
    const wrong: string[] = [];
    for (const file of files) {
      const xml = readFileSync(file);
      const t = truth(xml.toString('utf8'));
      const o = await extractInvoiceData(xml, 'application/octet-stream');
      const f = o.fields;
      if (f.invoice_number !== t.number || f.date !== t.date || Number(f.gross_total) !== t.gross)
        wrong.push(`${file.slice(root.length)}: ${f.invoice_number} ${f.date} ${f.gross_total}`);
    }
    assert.deepEqual(wrong, []);
  });
});

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
