import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { giroCode } from '../../src/modules/outgoing-invoices/invoices.pdf.js';
import {
  creditorReference,
  groupedReference,
  isValidCreditorReference,
} from '../../src/shared/creditor-reference.js';
import { epcPayload } from '../../src/shared/pdf/girocode.js';
import { renderDocumentPdf } from '../../src/shared/pdf/render.js';
import { sampleDocument } from '../../src/shared/pdf/sample.js';
import { epcFields, qrCodesOfPdf } from '../qr.js';

const seller: { name: string; iban: string | null; bic: string | null } = {
  name: 'Demo Agency GmbH',
  iban: 'de02 1203 0000 0000 2020 51',
  bic: 'BYLADEM1001',
};
const inv: { invoice_number: string | null; currency: string; amount_due_cents: number } = {
  invoice_number: 'RE-2026-00042',
  currency: 'EUR',
  amount_due_cents: 119_000,
};

describe('ISO 11649 creditor references', () => {
  const cases: [string, string | null][] = [
    ['539007547034', 'RF18539007547034'], // the standard's own example
    ['RE-2026-00042', creditorReference('RE202600042')],
    ['re 2026 00042', creditorReference('RE202600042')],
    ['x'.repeat(21), `${creditorReference('x'.repeat(21))}`],
    ['x'.repeat(22), null],
    ['--', null],
  ];
  for (const [number, expected] of cases)
    it(`${JSON.stringify(number)} → ${expected}`, () => {
      const ref = creditorReference(number);
      assert.equal(ref, expected);
      if (ref) assert.ok(isValidCreditorReference(ref) && ref.length <= 25);
    });
  it('checks form and check digits, blanks and case ignored', () => {
    assert.ok(isValidCreditorReference('rf18 5390 0754 7034'));
    assert.ok(!isValidCreditorReference('RF19539007547034'));
    assert.ok(!isValidCreditorReference('RF18'));
    assert.equal(groupedReference('RF18539007547034'), 'RF18 5390 0754 7034');
  });
});

describe('the GiroCode of an invoice', () => {
  const cases: {
    name: string;
    kind?: Parameters<typeof giroCode>[0];
    inv?: Partial<typeof inv>;
    seller?: Partial<typeof seller>;
    want: Partial<NonNullable<ReturnType<typeof giroCode>>> | null;
  }[] = [
    {
      name: 'a booked invoice: the reference of its number, IBAN and BIC in electronic form',
      want: {
        iban: 'DE02120300000000202051',
        bic: 'BYLADEM1001',
        amount: '1190.00',
        reference: creditorReference('RE-2026-00042'),
        text: null,
      },
    },
    {
      name: 'a draft names itself a draft, with no reference',
      inv: { invoice_number: null },
      want: { reference: null, text: 'Invoice (draft)' },
    },
    {
      name: 'a German draft',
      kind: 'deposit',
      inv: { invoice_number: null },
      want: { text: 'Abschlagsrechnung (Entwurf)' },
    },
    {
      name: 'a number too long for a reference goes as the text',
      inv: { invoice_number: 'RE-2026-0000000000000000042' },
      want: { reference: null, text: 'RE-2026-0000000000000000042' },
    },
    {
      name: 'a BIC that is not one is left out (optional in version 002)',
      seller: { bic: 'no BIC!' },
      want: { bic: null },
    },
    { name: 'a credit note: none', kind: 'credit', want: null },
    { name: 'another currency: none', inv: { currency: 'CHF' }, want: null },
    { name: 'nothing due: none', inv: { amount_due_cents: 0 }, want: null },
    { name: 'more than the code carries: none', inv: { amount_due_cents: 100_000_000_000 }, want: null },
    { name: 'no IBAN: none', seller: { iban: null }, want: null },
    { name: 'an invalid IBAN: none', seller: { iban: 'DE02120300000000202052' }, want: null },
  ];
  for (const c of cases)
    it(c.name, () => {
      const lang = c.name.includes('German') ? 'de' : 'en';
      const got = giroCode(c.kind ?? 'invoice', lang, { ...inv, ...c.inv }, { ...seller, ...c.seller });
      if (c.want === null) return assert.equal(got, null);
      assert.ok(got);
      for (const [k, v] of Object.entries(c.want)) assert.equal(got[k as keyof typeof got], v, k);
    });

  it('the payload follows EPC069-12 v002 line by line; reference and text never both', () => {
    const g = giroCode('invoice', 'en', inv, seller)!;
    assert.equal(
      epcPayload(g),
      [
        'BCD',
        '002',
        '1',
        'SCT',
        'BYLADEM1001',
        'Demo Agency GmbH',
        'DE02120300000000202051',
        'EUR1190.00',
        '',
        g.reference,
      ].join('\n'),
    );
    const text = epcPayload({ ...g, reference: null, text: 'RE 1', bic: null, name: 'N'.repeat(80) });
    const f = epcFields(text);
    assert.equal(f.bic, '');
    assert.equal(f.name.length, 70);
    assert.equal(f.reference, '');
    assert.equal(f.text, 'RE 1');
  });

  it('printed on the PDF, a QR reader gets the IBAN, amount and reference back', async () => {
    const g = giroCode('invoice', 'de', inv, seller)!;
    for (const lines of [3, 32]) {
      const pdf = await renderDocumentPdf({ ...sampleDocument({ lines }), giro_code: g });
      const codes = await qrCodesOfPdf(pdf);
      assert.equal(codes.length, 1, `one code on ${lines} lines`);
      const f = epcFields(codes[0]!);
      assert.deepEqual(
        [f.service, f.version, f.identification, f.iban, f.amount, f.reference],
        ['BCD', '002', 'SCT', 'DE02120300000000202051', 'EUR1190.00', 'RF' + g.reference!.slice(2)],
      );
    }
  });

  it('a document without one prints no code', async () => {
    assert.deepEqual(await qrCodesOfPdf(await renderDocumentPdf(sampleDocument({ lines: 3 }))), []);
  });
});
