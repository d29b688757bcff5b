import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { type CreditTransferFile, creditTransferXml } from '../../src/modules/banking/sepa.domain.js';
import { material } from './material.js';

/**
 * The SEPA credit transfer files we write, validated against the ISO 20022 schemas with the
 * JDK's own XML Schema validator (javax.xml.validation; Java is installed for the e-invoice
 * rules already, see .ci/run), run as a single-file source program.
 */
const SCHEMAS = material('iso20022');
const dir = mkdtempSync(join(tmpdir(), 'sepa-xsd-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const VALIDATOR = `
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import java.io.File;
public class Validate {
  public static void main(String[] args) throws Exception {
    var schema = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI).newSchema(new File(args[0]));
    int failed = 0;
    for (int i = 1; i < args.length; i++) {
      try { schema.newValidator().validate(new StreamSource(new File(args[i]))); System.out.println("valid " + args[i]); }
      catch (Exception e) { failed++; System.out.println("INVALID " + args[i] + ": " + e.getMessage()); }
    }
    System.exit(failed == 0 ? 0 : 1);
  }
}
`;
writeFileSync(join(dir, 'Validate.java'), VALIDATOR);

function validate(xsd: string, files: string[]): string {
  try {
    return execFileSync('java', [join(dir, 'Validate.java'), join(SCHEMAS, xsd), ...files], {
      encoding: 'utf8',
    });
  } catch (err) {
    throw new Error(`schema validation failed:\n${(err as { stdout?: string }).stdout ?? err}`);
  }
}

const FILE: CreditTransferFile = {
  message_id: 'PAY-2026-04-30-1',
  created_at: '2026-04-30T09:15:00Z',
  debtor_name: 'Müller & Söhne GmbH',
  debtor_iban: 'DE02120300000000202051',
  debtor_bic: 'BYLADEM1001',
  execution_date: '2026-05-04',
  transfers: [
    {
      amount: 119_00,
      creditor_name: 'Büro-Bedarf Größe AG',
      creditor_iban: 'DE89370400440532013000',
      creditor_bic: 'COBADEFFXXX',
      remittance: 'Rechnung IN-2026-0042 <Kd. 4711>',
      end_to_end_id: 'INV-17',
    },
    {
      amount: 1_234_567_89,
      creditor_name: 'Société Générale Façade',
      creditor_iban: 'FR1420041010050500013M02606',
      creditor_bic: null,
      remittance: 'Facture 2026/17',
      end_to_end_id: 'INV-18',
    },
  ],
};

describe('SEPA credit transfer files against the ISO 20022 schemas', () => {
  it('pain.001.001.09 and pain.001.001.03 are valid, with and without BICs', () => {
    const files: Record<string, string[]> = { 'pain.001.001.09.xsd': [], 'pain.001.001.03.xsd': [] };
    for (const version of ['pain.001.001.09', 'pain.001.001.03'] as const) {
      for (const [n, f] of [FILE, { ...FILE, debtor_bic: null, transfers: [FILE.transfers[1]!] }].entries()) {
        const path = join(dir, `${version}-${n}.xml`);
        writeFileSync(path, creditTransferXml(f, version));
        files[`${version}.xsd`]!.push(path);
      }
    }
    for (const [xsd, list] of Object.entries(files)) {
      const out = validate(xsd, list);
      assert.equal(
        out
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('valid ')).length,
        list.length,
        out,
      );
    }
  });

  it('a file that breaks the schema is caught (the validator is not a no-op)', () => {
    const path = join(dir, 'broken.xml');
    writeFileSync(path, creditTransferXml(FILE).replace('<ChrgBr>SLEV</ChrgBr>', '<ChrgBr>XXXX</ChrgBr>'));
    assert.throws(() => validate('pain.001.001.09.xsd', [path]), /INVALID/);
  });
});
