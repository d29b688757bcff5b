import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { creditTransferXml, sepaText } from '../../src/modules/banking/sepa.domain.js';

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
