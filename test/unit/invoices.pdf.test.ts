import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { accountProfile } from '../../src/modules/account/profile.public.js';
import {
  contactName,
  type InvoicePdfInput,
  invoiceToPdf,
  offerToPdf,
  paymentTerms,
  pdfKind,
} from '../../src/modules/outgoing-invoices/invoices.pdf.js';
import type { StoredLine } from '../../src/modules/outgoing-invoices/line-items.js';
import { documentTotals, subtractTotals } from '../../src/shared/money.js';

const seller = accountProfile({
  name: 'Demo Agency GmbH',
  country_code: 'DE',
  settings: JSON.stringify({
    street: 'Friedrichstraße 123',
    zip: '10117',
    city: 'Berlin',
    vat_id: 'DE999999999',
    iban: 'DE02120300000000202051',
    bic: 'BYLADEM1001',
    bank_name: 'DKB',
  }),
});
const buyer = {
  name: 'ACME Corporation',
  street: 'Main St 1',
  zip: '12345',
  city: 'Springfield',
  country_code: 'DE',
  vat_id: 'DE123456789',
  tax_number: null,
  email: 'ap@acme.example',
  phone: null,
  language: 'en',
};
const line = (
  position: number,
  quantity: string,
  unit_price: number,
  tax_rate: string,
  net_total: number,
): StoredLine => ({
  id: position,
  position,
  title: `Line ${position}`,
  description: null,
  quantity,
  unit: 'h',
  unit_price,
  tax_rate,
  discount: null,
  net_total,
});
const items = [line(1, '1.5', 3333, '19', 5000), line(2, '2', 1000, '7', 2000)];
const totals = documentTotals(items.map((i) => ({ net: i.net_total, tax_rate: i.tax_rate })));
const base: InvoicePdfInput = {
  type: 'invoice',
  status: 'booked',
  invoice_number: 'RE-2026-00042',
  date: '2026-03-01',
  due_date: '2026-03-15',
  payment_term_days: 14,
  service_period_start: '2026-02-01',
  service_period_end: '2026-02-28',
  currency: 'EUR',
  title: 'February',
  intro_text: 'Hello',
  closing_text: 'Thanks',
  items,
  totals,
  plan_total: null,
  deductions: [],
};

describe('PDF mapping of outgoing invoices', () => {
  it('maps sender, recipient, number, dates, positions, taxes, totals and terms as exact strings', () => {
    const doc = invoiceToPdf(base, seller, buyer);
    assert.equal(doc.kind, 'invoice');
    assert.equal(doc.title, 'Invoice');
    assert.equal(doc.number, 'RE-2026-00042');
    assert.equal(doc.booked, true);
    assert.equal(doc.seller.name, 'Demo Agency GmbH');
    assert.equal(doc.seller.vat_id, 'DE999999999');
    assert.equal(doc.seller.iban, 'DE02120300000000202051');
    assert.equal(doc.buyer.name, 'ACME Corporation');
    assert.equal(doc.buyer.vat_id, 'DE123456789');
    assert.deepEqual(
      doc.lines.map((l) => [l.position, l.quantity, l.unit_price, l.tax_rate, l.net_total]),
      [
        [1, '1.5', '33.33', '19', '50.00'],
        [2, '2', '10.00', '7', '20.00'],
      ],
    );
    assert.deepEqual(doc.taxes, [
      { rate: '7', net: '20.00', tax: '1.40' },
      { rate: '19', net: '50.00', tax: '9.50' },
    ]);
    assert.equal(doc.net_total, '70.00');
    assert.equal(doc.tax_total, '10.90');
    assert.equal(doc.gross_total, '80.90');
    assert.equal(doc.amount_due, '80.90');
    assert.equal(doc.service_period_start, '2026-02-01');
    assert.equal(doc.payment_terms, 'Payable without deduction by 15 Mar 2026 (14 days).');
    assert.deepEqual(doc.references, [{ label: 'Subject', value: 'February' }]);
  });

  it('addresses the contact person', () => {
    const attention = contactName({ title: 'Dr.', first_name: 'Mira', last_name: 'Schulz' });
    assert.equal(invoiceToPdf({ ...base, attention }, seller, buyer).buyer.attention, 'Dr. Mira Schulz');
    assert.equal(contactName({ title: null, first_name: null, last_name: 'Schulz' }), 'Schulz');
    assert.equal(invoiceToPdf(base, seller, buyer).buyer.attention, null);
  });

  it('drafts are not booked; German clients get German labels', () => {
    const doc = invoiceToPdf({ ...base, status: 'open', invoice_number: null }, seller, {
      ...buyer,
      language: 'de',
    });
    assert.equal(doc.booked, false);
    assert.equal(doc.number, null);
    assert.equal(doc.language, 'de');
    assert.equal(doc.title, 'Rechnung');
    assert.equal(doc.payment_terms, 'Zahlbar ohne Abzug bis 15.03.2026 (14 Tage).');
  });

  it('a final invoice shows the plan total, its deductions and the amount due', () => {
    const deposit = documentTotals([{ net: 2000, tax_rate: '19' }]);
    const doc = invoiceToPdf(
      {
        ...base,
        type: 'final',
        plan_total: totals,
        totals: subtractTotals(totals, deposit),
        deductions: [{ type: 'deposit', invoice_number: 'RE-2026-00040', totals: deposit }],
      },
      seller,
      buyer,
    );
    assert.equal(doc.kind, 'final');
    assert.equal(doc.title, 'Final invoice');
    assert.equal(doc.gross_total, '80.90');
    assert.deepEqual(doc.deductions, [
      {
        title: 'Deposit invoice RE-2026-00040',
        number: 'RE-2026-00040',
        net: '20.00',
        tax: '3.80',
        gross: '23.80',
      },
    ]);
    assert.equal(doc.amount_due, '57.10');
  });

  it('a credit names the credited invoice', () => {
    const doc = invoiceToPdf(
      { ...base, type: 'credit', credited_invoice_number: 'RE-2026-00001' },
      seller,
      buyer,
    );
    assert.equal(doc.kind, 'credit');
    assert.equal(doc.title, 'Credit note');
    assert.deepEqual(doc.references?.[0], { label: 'Credited invoice', value: 'RE-2026-00001' });
  });

  const kinds: [string, string][] = [
    ['invoice', 'invoice'],
    ['credit', 'credit'],
    ['deposit', 'deposit'],
    ['partial', 'partial'],
    ['final', 'final'],
  ];
  for (const [type, kind] of kinds)
    it(`type ${type} prints as ${kind}`, () => assert.equal(pdfKind(type), kind));

  it('payment terms: none without a due date, a set-off note on credits', () => {
    assert.equal(paymentTerms('invoice', 'en', { due_date: null, payment_term_days: null }), null);
    assert.match(paymentTerms('credit', 'en', { due_date: null, payment_term_days: null })!, /set off/);
    assert.equal(paymentTerms('offer', 'en', { due_date: '2026-01-01', payment_term_days: 1 }), null);
  });
});

describe('PDF mapping of offers', () => {
  it('is never booked and shows the validity', () => {
    const doc = offerToPdf(
      {
        offer_number: 'AN-7',
        date: '2026-03-02',
        valid_until: '2026-04-01',
        currency: 'EUR',
        title: null,
        intro_text: null,
        closing_text: null,
        items,
        totals,
      },
      seller,
      buyer,
    );
    assert.equal(doc.kind, 'offer');
    assert.equal(doc.booked, false);
    assert.equal(doc.number, 'AN-7');
    assert.equal(doc.gross_total, '80.90');
    assert.deepEqual(doc.references, [{ label: 'Valid until', value: '1 Apr 2026' }]);
  });
});
