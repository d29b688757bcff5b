import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Collection,
  collectionBlocks,
  creditTransferXml,
  type DirectDebitFile,
  directDebitXml,
  isMandateReference,
  sameDebtorBank,
  sepaText,
} from '../../src/modules/sepa/sepa.domain.js';
import { isValidSepaCreditorId } from '../../src/shared/identifiers.js';

const FILE = {
  message_id: 'M-1',
  created_at: '2026-04-30T09:15:00.123Z',
  debtor_name: 'Seller GmbH',
  debtor_iban: 'DE02120300000000202051',
  debtor_bic: 'BYLADEM1001',
  execution_date: '2026-05-04',
  transfers: [
    {
      amount: 1,
      creditor_name: 'A',
      creditor_iban: 'DE89370400440532013000',
      creditor_bic: null,
      remittance: 'x',
      end_to_end_id: 'E-1',
    },
    {
      amount: 99_999_999_999,
      creditor_name: 'B',
      creditor_iban: 'DE89370400440532013000',
      creditor_bic: null,
      remittance: 'y',
      end_to_end_id: 'E-2',
    },
    {
      amount: 70_07,
      creditor_name: 'C',
      creditor_iban: 'DE89370400440532013000',
      creditor_bic: null,
      remittance: 'z',
      end_to_end_id: 'E-3',
    },
  ],
};

describe('SEPA credit transfer files', () => {
  it('counts and control sums are exact, in both places', () => {
    const xml = creditTransferXml(FILE);
    assert.deepEqual(xml.match(/<NbOfTxs>(\d+)<\/NbOfTxs>/g), [
      '<NbOfTxs>3</NbOfTxs>',
      '<NbOfTxs>3</NbOfTxs>',
    ]);
    assert.deepEqual(xml.match(/<CtrlSum>([\d.]+)<\/CtrlSum>/g), [
      '<CtrlSum>1000000070.07</CtrlSum>',
      '<CtrlSum>1000000070.07</CtrlSum>',
    ]);
    assert.ok(xml.includes('<InstdAmt Ccy="EUR">0.01</InstdAmt>'));
    assert.ok(xml.includes('<InstdAmt Ccy="EUR">70.07</InstdAmt>'));
    assert.ok(xml.includes('<ReqdExctnDt><Dt>2026-05-04</Dt></ReqdExctnDt>'));
    assert.ok(creditTransferXml(FILE, 'pain.001.001.03').includes('<ReqdExctnDt>2026-05-04</ReqdExctnDt>'));
    assert.ok(xml.includes('<CreDtTm>2026-04-30T09:15:00</CreDtTm>'));
  });

  it('texts are in the SEPA character set', () => {
    assert.equal(sepaText('Müller & Söhne Straße', 70), 'Mueller + Soehne Strasse');
    assert.equal(sepaText('Société Générale <Façade> €5', 70), 'Societe Generale Facade 5');
    assert.equal(sepaText('x'.repeat(200), 140).length, 140);
  });

  it('refuses what a bank would: bad IBAN or BIC, no transfer, amounts out of range, bad ids', () => {
    const t = FILE.transfers[0]!;
    for (const bad of [
      { ...FILE, debtor_iban: 'DE00120300000000202051' },
      { ...FILE, debtor_bic: 'NOTABIC1X' },
      { ...FILE, transfers: [] },
      { ...FILE, transfers: [{ ...t, amount: 0 }] },
      { ...FILE, transfers: [{ ...t, amount: 100_000_000_000 }] },
      { ...FILE, transfers: [{ ...t, amount: 1.5 }] },
      { ...FILE, transfers: [{ ...t, creditor_iban: 'DE89370400440532013001' }] },
      { ...FILE, transfers: [{ ...t, end_to_end_id: 'é' }] },
      { ...FILE, transfers: [{ ...t, end_to_end_id: 'x'.repeat(36) }] },
      { ...FILE, transfers: [{ ...t, creditor_name: '€€' }] },
    ])
      assert.throws(() => creditTransferXml(bad));
  });
});

const collection = (over: Partial<Collection>): Collection => ({
  amount: 100,
  debtor_name: 'Debtor',
  debtor_iban: 'DE89370400440532013000',
  debtor_bic: null,
  mandate_reference: 'M-1',
  mandate_signed_on: '2026-01-02',
  scheme: 'CORE',
  sequence_type: 'FRST',
  remittance: 'RE-1',
  end_to_end_id: 'DD1-1',
  ...over,
});

const DEBITS: DirectDebitFile = {
  message_id: 'DD-1',
  created_at: '2026-04-30T09:15:00.000Z',
  creditor_name: 'Seller GmbH',
  creditor_iban: 'DE02120300000000202051',
  creditor_bic: null,
  creditor_identifier: 'DE98ZZZ09999999999',
  collection_date: '2026-05-15',
  collections: [
    collection({ amount: 1, sequence_type: 'RCUR', end_to_end_id: 'DD1-1' }),
    collection({ amount: 99_999_999_999, scheme: 'B2B', sequence_type: 'RCUR', end_to_end_id: 'DD1-2' }),
    collection({ amount: 70_07, end_to_end_id: 'DD1-3' }),
    collection({ amount: 30_00, sequence_type: 'RCUR', end_to_end_id: 'DD1-4' }),
  ],
};

describe('SEPA direct debit files', () => {
  it('one block per scheme and sequence type, each with its count and sum; the header sums them all', () => {
    assert.deepEqual(
      collectionBlocks(DEBITS.collections).map((b) => [b.key, b.items.map((c) => c.end_to_end_id)]),
      [
        ['CORE/FRST', ['DD1-3']],
        ['CORE/RCUR', ['DD1-1', 'DD1-4']],
        ['B2B/RCUR', ['DD1-2']],
      ],
    );
    const xml = directDebitXml(DEBITS);
    assert.deepEqual(
      [...xml.matchAll(/<NbOfTxs>(\d+)<\/NbOfTxs>/g)].map((m) => m[1]),
      ['4', '1', '2', '1'],
    );
    assert.deepEqual(
      [...xml.matchAll(/<CtrlSum>([\d.]+)<\/CtrlSum>/g)].map((m) => m[1]),
      ['1000000100.07', '70.07', '30.01', '999999999.99'],
    );
    assert.deepEqual(
      [...xml.matchAll(/<SeqTp>(\w+)<\/SeqTp>/g)].map((m) => m[1]),
      ['FRST', 'RCUR', 'RCUR'],
    );
    assert.ok(xml.includes('<ReqdColltnDt>2026-05-15</ReqdColltnDt>'));
    assert.ok(xml.includes('<MndtId>M-1</MndtId><DtOfSgntr>2026-01-02</DtOfSgntr>'));
    assert.ok(xml.includes('<Othr><Id>NOTPROVIDED</Id></Othr>'));
  });

  it('refuses a bad creditor identifier, mandate reference, IBAN or amount', () => {
    const c = DEBITS.collections[0]!;
    for (const bad of [
      { ...DEBITS, creditor_identifier: 'DE97ZZZ09999999999' },
      { ...DEBITS, creditor_iban: 'DE00120300000000202051' },
      { ...DEBITS, collections: [] },
      { ...DEBITS, collections: [{ ...c, mandate_reference: 'WITH BLANK' }] },
      { ...DEBITS, collections: [{ ...c, debtor_iban: 'DE89370400440532013001' }] },
      { ...DEBITS, collections: [{ ...c, amount: 0 }] },
      { ...DEBITS, collections: [{ ...c, debtor_name: '' }] },
    ])
      assert.throws(() => directDebitXml(bad));
  });

  it('an amended mandate: AmdmntInd with what changed, in the schema order; SMNDA only with FRST', () => {
    const c = DEBITS.collections[2]!; // FRST
    const xml = (over: Partial<Collection>) =>
      directDebitXml({ ...DEBITS, collections: [{ ...c, ...over }] });
    assert.ok(
      xml({
        amendment: {
          original_reference: 'OLD-1',
          original_iban: 'DE89370400440532013000',
          new_debtor_bank: false,
        },
      }).includes(
        '<DtOfSgntr>2026-01-02</DtOfSgntr><AmdmntInd>true</AmdmntInd><AmdmntInfDtls><OrgnlMndtId>OLD-1</OrgnlMndtId>' +
          '<OrgnlDbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></OrgnlDbtrAcct></AmdmntInfDtls></MndtRltdInf>',
      ),
    );
    // Another bank: SMNDA, and the old IBAN (another bank's account) is not named.
    const moved = xml({
      amendment: { original_reference: null, original_iban: 'DE89370400440532013000', new_debtor_bank: true },
    });
    assert.ok(
      moved.includes(
        '<AmdmntInfDtls><OrgnlDbtrAgt><FinInstnId><Othr><Id>SMNDA</Id></Othr></FinInstnId></OrgnlDbtrAgt></AmdmntInfDtls>',
      ),
    );
    assert.doesNotMatch(xml({ amendment: null }), /Amdmnt/);
    assert.doesNotMatch(
      xml({ amendment: { original_reference: null, original_iban: null, new_debtor_bank: false } }),
      /Amdmnt/,
    );
    const rcur = { sequence_type: 'RCUR' as const };
    assert.throws(
      () =>
        xml({ ...rcur, amendment: { original_reference: null, original_iban: null, new_debtor_bank: true } }),
      /SMNDA/,
    );
    assert.throws(
      () => xml({ amendment: { original_reference: 'A B', original_iban: null, new_debtor_bank: false } }),
      /original mandate reference/,
    );
  });

  it('the same debtor bank: the bank code at its place in the IBAN, else the BIC', () => {
    const same = (a: string, b: string, bics: [string | null, string | null] = [null, null]) =>
      sameDebtorBank({ iban: a, bic: bics[0] }, { iban: b, bic: bics[1] });
    // Germany: the eight-digit bank code (Bankleitzahl).
    assert.ok(same('DE75512108001245126199', 'DE82512108000000012345'));
    assert.ok(!same('DE75512108001245126199', 'DE89370400440532013000'));
    // Italy: the ABI after the check character (CIN); the branch (CAB) does not matter.
    assert.ok(same('IT60X0542811101000000123456', 'IT41X0542811102000000123457'));
    assert.ok(!same('IT60X0542811101000000123456', 'IT57Y0306909606100000063317'));
    assert.ok(same('AT611904300234573201', 'AT341904300234573202'));
    // Another country is another bank.
    assert.ok(!same('AT611904300234573201', 'DE75512108001245126199'));
    // Bulgaria is not in the table: the BICs decide, and without them it is another bank.
    const [bg1, bg2] = ['BG80BNBG96611020345678', 'BG53BNBG96611020345679'];
    assert.ok(same(bg1, bg2, ['BNBGBGSFXXX', 'BNBGBGSF']));
    assert.ok(!same(bg1, bg2, ['BNBGBGSFXXX', 'UNCRBGSFXXX']));
    assert.ok(!same(bg1, bg2));
  });

  it('mandate references: the SEPA set without blanks, no leading / and no //', () => {
    for (const ok of ['M-1', "A+?/-:().,'Z", 'x'.repeat(35)]) assert.ok(isMandateReference(ok), ok);
    for (const bad of ['', 'A B', '/A', 'A//B', 'Ä1', 'x'.repeat(36)])
      assert.ok(!isMandateReference(bad), bad);
  });

  it('creditor identifiers: ISO 7064 mod 97-10 over the national id, the business code left out', () => {
    for (const ok of [
      'DE98ZZZ09999999999',
      'de98 zzz 09999999999',
      'DE98ABC09999999999',
      'AT61ZZZ01234567890',
    ])
      assert.ok(isValidSepaCreditorId(ok), ok);
    for (const bad of ['DE97ZZZ09999999999', 'DE98ZZZ09999999998', 'DE98ZZZ', '9898ZZZ09999999999'])
      assert.ok(!isValidSepaCreditorId(bad), bad);
  });
});
