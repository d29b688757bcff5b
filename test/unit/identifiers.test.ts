import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isValidBic, isValidIban, isValidVatId, vatIdCountry } from '../../src/shared/identifiers.js';

describe('identifiers', () => {
  const ibans: [string, boolean][] = [
    ['DE89 3704 0044 0532 0130 00', true],
    ['de89370400440532013000', true],
    ['DE89370400440532013001', false], // check digits
    ['DE8937040044053201300', false], // length
    ['GB29 NWBK 6016 1331 9268 19', true],
    ['FR14 2004 1010 0505 0001 3M02 606', true],
    ['AT61 1904 3002 3457 3201', true],
    ['CH93 0076 2011 6238 5295 7', true],
    ['NL91 ABNA 0417 1643 00', true],
    ['XX89370400440532013000', false], // unknown country
    ['DE79000000001234567890', true], // the XRechnung test suite's
    ['', false],
  ];
  for (const [iban, ok] of ibans)
    it(`IBAN ${iban || '(empty)'} ${ok ? 'valid' : 'invalid'}`, () => assert.equal(isValidIban(iban), ok));

  const bics: [string, boolean][] = [
    ['COBADEFFXXX', true],
    ['COBADEFF', true],
    ['cobadeff', true],
    ['COBADEF', false],
    ['COBA1EFF', false], // country letters
    ['12BADEFF', false],
    ['COBADEFFXX', false],
  ];
  for (const [bic, ok] of bics)
    it(`BIC ${bic} ${ok ? 'valid' : 'invalid'}`, () => assert.equal(isValidBic(bic), ok));

  const vats: [string, boolean][] = [
    ['DE123456789', true],
    ['DE 123 456 789', true],
    ['DE12345678', false],
    ['DE/12/345/67890', false],
    ['ATU12345678', true],
    ['ATU1234567', false],
    ['FR12345678901', true],
    ['FRAB123456789', true],
    ['NL123456789B01', true],
    ['NL123456789', false],
    ['EL123456789', true],
    ['GR123456789', true],
    ['GB123456789', true],
    ['CHE123456789MWST', true],
    ['IT12345678901', true],
    ['ESX1234567X', true],
    ['BE0123456789', true],
    ['BE2123456789', false],
    ['US12345', false], // no VAT id format known
    ['123456789', false],
  ];
  for (const [vat, country] of [
    ['DE 123456789', 'DE'],
    ['EL123456789', 'GR'],
    ['XI123456789', 'GB'],
    ['US12345', undefined],
  ] as const)
    it(`VAT id ${vat} is of ${country}`, () => assert.equal(vatIdCountry(vat), country));
  for (const [vat, ok] of vats)
    it(`VAT id ${vat} ${ok ? 'valid' : 'invalid'}`, () => assert.equal(isValidVatId(vat), ok));
});
