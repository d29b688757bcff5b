import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  type Collection,
  type CreditTransferFile,
  creditTransferXml,
  type DirectDebitFile,
  directDebitXml,
} from '../../src/modules/sepa/sepa.domain.js';
import { type Api, describeEachDb } from '../helpers.js';
import { bookNow, line, makeClient, makeInvoice } from '../invoicing.fixtures.js';
import { material } from './material.js';

/**
 * The SEPA credit transfer and direct debit files we write, validated against the ISO 20022 schemas with the
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

/** The account a debtor paid from before an amendment. */
const OTHER_ACCOUNT = 'DE82512108000000012345';

const DEBITS: DirectDebitFile = {
  message_id: 'DD-7-20260430091500',
  created_at: '2026-04-30T09:15:00Z',
  creditor_name: 'Müller & Söhne GmbH',
  creditor_iban: 'DE02120300000000202051',
  creditor_bic: 'BYLADEM1001',
  creditor_identifier: 'DE98ZZZ09999999999',
  collection_date: '2026-05-15',
  collections: [
    {
      amount: 119_00,
      debtor_name: 'Kunde Äpfel & Co',
      debtor_iban: 'DE75512108001245126199',
      debtor_bic: 'GENODEF1S04',
      mandate_reference: 'MANDATE-2026/1',
      mandate_signed_on: '2026-01-02',
      scheme: 'CORE',
      sequence_type: 'FRST',
      remittance: 'RE-2026-0001',
      end_to_end_id: 'DD7-1',
    },
    {
      amount: 50_50,
      debtor_name: 'Kunde Zwei',
      debtor_iban: 'DE89370400440532013000',
      debtor_bic: null,
      mandate_reference: 'M2',
      mandate_signed_on: '2025-11-30',
      scheme: 'CORE',
      sequence_type: 'RCUR',
      remittance: 'RE-2026-0002',
      end_to_end_id: 'DD7-2',
    },
    {
      amount: 1_190_00,
      debtor_name: 'Société Générale Façade',
      debtor_iban: 'FR1420041010050500013M02606',
      debtor_bic: null,
      mandate_reference: 'B2B-9',
      mandate_signed_on: '2025-06-01',
      scheme: 'B2B',
      sequence_type: 'RCUR',
      remittance: 'RE-2026-0003',
      end_to_end_id: 'DD7-3',
    },
  ],
};

/** Every line of the validator says `valid …`, one per file. */
function assertAllValid(out: string, n: number): void {
  assert.equal(
    out
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('valid ')).length,
    n,
    out,
  );
}

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

describe('SEPA direct debit files against the ISO 20022 schema', () => {
  it('pain.008.001.08 is valid: CORE and B2B blocks, FRST and RCUR, with and without BICs', () => {
    const files = [DEBITS, { ...DEBITS, creditor_bic: null, collections: [DEBITS.collections[2]!] }].map(
      (f, n) => {
        const path = join(dir, `pain.008.001.08-${n}.xml`);
        writeFileSync(path, directDebitXml(f));
        return path;
      },
    );
    assertAllValid(validate('pain.008.001.08.xsd', files), files.length);
  });

  it('pain.008.001.08 with mandate amendments is valid: OrgnlMndtId, OrgnlDbtrAcct, SMNDA as OrgnlDbtrAgt', () => {
    const [frst, rcur, b2b] = DEBITS.collections as [Collection, Collection, Collection];
    const amended: DirectDebitFile = {
      ...DEBITS,
      collections: [
        // Moved to another bank and a new reference: SMNDA, collected as FRST.
        {
          ...frst,
          amendment: {
            original_reference: 'MANDATE-2025/9',
            original_iban: OTHER_ACCOUNT,
            new_debtor_bank: true,
          },
        },
        // A new account at the same bank.
        {
          ...rcur,
          amendment: { original_reference: null, original_iban: OTHER_ACCOUNT, new_debtor_bank: false },
        },
        { ...b2b, amendment: { original_reference: 'B2B-8', original_iban: null, new_debtor_bank: false } },
      ],
    };
    const xml = directDebitXml(amended);
    assert.equal(xml.match(/<AmdmntInd>true<\/AmdmntInd>/g)?.length, 3);
    assert.match(
      xml,
      /<OrgnlDbtrAgt><FinInstnId><Othr><Id>SMNDA<\/Id><\/Othr><\/FinInstnId><\/OrgnlDbtrAgt>/,
    );
    const path = join(dir, 'pain.008.001.08-amended.xml');
    writeFileSync(path, xml);
    assertAllValid(validate('pain.008.001.08.xsd', [path]), 1);
  });

  it('a direct debit file that breaks the schema is caught', () => {
    const path = join(dir, 'broken-008.xml');
    writeFileSync(path, directDebitXml(DEBITS).replace('<SeqTp>FRST</SeqTp>', '<SeqTp>FIRST</SeqTp>'));
    assert.throws(() => validate('pain.008.001.08.xsd', [path]), /INVALID/);
  });
});

describeEachDb('SEPA files made by the service, against the ISO 20022 schemas', (ctx) => {
  let api: Api;
  let accountId: number;
  const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

  before(async () => {
    api = await ctx.as([
      'banking:read',
      'banking:write',
      'incoming-invoice:write',
      'outgoing-invoice:write',
      'outgoing-invoice:book',
      'client:write',
      'account:write',
    ]);
    accountId = (await api.post('/payment-accounts', { name: 'Main', iban: 'DE02120300000000202051' })).body
      .data.id;
    const profile = await api.patch('/account/profile', { sepa_creditor_identifier: 'DE98ZZZ09999999999' });
    assert.equal(profile.status, 200, profile.text);
  });

  /** Downloads a run's file into the temporary folder. */
  const saved = async (url: string, name: string) => {
    const res = await api.get(url.replace('/api/v1', ''));
    assert.equal(res.status, 200, res.text);
    const path = join(dir, `${ctx.kind}-${name}.xml`);
    writeFileSync(path, res.text);
    return path;
  };

  it('pain.001.001.09, pain.001.001.03 and pain.008.001.08 from the API are valid', async () => {
    const supplier = (
      await api.post('/suppliers', {
        name: 'Büro & Bedarf',
        iban: 'DE89370400440532013000',
        bic: 'COBADEFFXXX',
      })
    ).body.data.id;
    const doc = async (gross: number) =>
      (
        await api.post('/incoming-invoices', {
          gross_total: gross,
          supplier_id: supplier,
          invoice_number: `IN ${gross}`,
        })
      ).body.data.id;
    const files: Record<string, string[]> = {};
    for (const version of ['pain.001.001.09', 'pain.001.001.03']) {
      const res = await api.post('/sepa/credit-transfers', {
        payment_account_id: accountId,
        execution_date: later,
        version,
        invoices: [{ incoming_invoice_id: await doc(119) }, { incoming_invoice_id: await doc(0.01) }],
      });
      assert.equal(res.status, 201, res.text);
      files[`${version}.xsd`] = [await saved(res.body.data.file_url, version)];
    }
    const client = await makeClient(api, { name: 'Kunde Öl GmbH' });
    const mandate = (
      await api.post(`/clients/${client}/sepa-mandates`, {
        reference: 'M-1',
        signed_on: '2026-01-02',
        iban: 'DE75512108001245126199',
      })
    ).body.data.id;
    const collect = async () => {
      const invoice = (
        await bookNow(api, (await makeInvoice(api, { client_id: client, line_items: [line(10)] })).id)
      ).id;
      const debit = await api.post('/sepa/direct-debits', {
        payment_account_id: accountId,
        collection_date: later,
        invoices: [{ invoice_id: invoice }],
      });
      assert.equal(debit.status, 201, debit.text);
      return debit.body.data;
    };
    files['pain.008.001.08.xsd'] = [await saved((await collect()).file_url, 'pain.008.001.08')];
    // Amended: a new reference, then a new account at another bank (SMNDA, FRST).
    const amended = await api.patch(`/sepa-mandates/${mandate}`, {
      reference: 'M-1A',
      iban: 'DE89370400440532013000',
    });
    assert.equal(amended.status, 200, amended.text);
    const path = await saved((await collect()).file_url, 'pain.008.001.08-amended');
    assert.match(readFileSync(path, 'utf8'), /<OrgnlMndtId>M-1<\/OrgnlMndtId>.*<Id>SMNDA<\/Id>/);
    files['pain.008.001.08.xsd'].push(path);
    for (const [xsd, list] of Object.entries(files)) assertAllValid(validate(xsd, list), list.length);
  });
});
