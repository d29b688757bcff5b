import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  attachmentsFor,
  BUILT_IN_TEMPLATES,
  einvoiceGateErrors,
  fill,
  htmlOf,
  offerPlaceholderValues,
  placeholderValues,
  renderMessage,
  resolveRecipients,
  retryDelay,
  smtpVerdict,
  unknownPlaceholders,
} from '../../src/modules/mail/mail.domain.js';
import type { PdfDocument } from '../../src/shared/pdf/types.js';

const DOC = {
  kind: 'invoice',
  title: 'Invoice',
  number: 'RE-2026-00001',
  date: '2026-12-01',
  currency: 'EUR',
  seller: {
    name: 'Seller GmbH',
    attention: 'Ada Admin',
    street: 'Teststraße 1',
    zip: '10115',
    city: 'Berlin',
    country_code: 'DE',
    phone: '+49 30 1234567',
    email: 'billing@seller.example',
    iban: 'DE02120300000000202051',
  },
  buyer: { name: 'Buyer AG', street: 'Kundenweg 7', zip: '20095', city: 'Hamburg', country_code: 'DE' },
  buyer_reference: '991-12345-67',
  lines: [],
  taxes: [],
  net_total: '100.00',
  tax_total: '19.00',
  gross_total: '119.00',
  booked: true,
} satisfies PdfDocument;

describe('mail domain', () => {
  it('attaches per e-invoice format', () => {
    const cases: [string, string[]][] = [
      ['zugferd', ['pdf']],
      ['xrechnung_cii', ['cii']],
      ['xrechnung_ubl', ['ubl']],
      ['pdf_and_xrechnung', ['pdf', 'ubl']],
      ['something-newer', ['pdf']],
    ];
    for (const [format, expected] of cases) assert.deepEqual(attachmentsFor(format), expected, format);
  });

  it('gates XRechnung on the German rules, naming each broken rule and field', () => {
    const without = (change: (d: typeof DOC) => unknown): PdfDocument => {
      const d = structuredClone(DOC);
      change(d);
      return d;
    };
    const cases: [string, PdfDocument | null, string, string[]][] = [
      ['complete, XRechnung', DOC, 'xrechnung_ubl', []],
      ['zugferd needs no buyer reference', without((d) => (d.buyer_reference = '')), 'zugferd', []],
      [
        'no buyer reference',
        without((d) => (d.buyer_reference = '')),
        'xrechnung_cii',
        ['BR-DE-15 buyer_reference'],
      ],
      [
        'no seller contact',
        without((d) => {
          d.seller.attention = '';
          d.seller.phone = ' ';
          d.seller.email = '';
        }),
        'pdf_and_xrechnung',
        ['BR-DE-5 account.contact_name', 'BR-DE-6 account.phone', 'BR-DE-7 account.email'],
      ],
      [
        'no addresses, no IBAN',
        without((d) => {
          d.seller.city = '';
          d.seller.zip = '';
          d.buyer.city = '';
          d.buyer.zip = '';
          d.seller.iban = '';
        }),
        'xrechnung_ubl',
        [
          'BR-DE-3 account.city',
          'BR-DE-4 account.zip',
          'BR-DE-8 client.city',
          'BR-DE-9 client.zip',
          'BR-DE-1 account.iban',
        ],
      ],
      ['uploaded invoice as XRechnung', null, 'xrechnung_ubl', ['xrechnung_ubl einvoice_format']],
      ['uploaded invoice as PDF', null, 'zugferd', []],
    ];
    for (const [name, doc, format, expected] of cases) {
      const got = einvoiceGateErrors(doc, format).map((e) => `${e.message.split(':')[0]} ${e.field}`);
      assert.deepEqual(got, expected, name);
    }
  });

  it('resolves recipients: given, else invoice e-mail, contact, client; each address once', () => {
    const defaults = {
      invoiceEmail: 'ap@c.example',
      contactEmail: 'anna@c.example',
      clientEmail: 'office@c.example',
    };
    const cases: [string, Parameters<typeof resolveRecipients>, ReturnType<typeof resolveRecipients>][] = [
      ['given', [{ to: ['x@y.example'] }, defaults], { to: ['x@y.example'], cc: [], bcc: [] }],
      ['invoice e-mail', [{}, defaults], { to: ['ap@c.example'], cc: [], bcc: [] }],
      ['contact', [{}, { ...defaults, invoiceEmail: null }], { to: ['anna@c.example'], cc: [], bcc: [] }],
      [
        'client',
        [{}, { clientEmail: 'office@c.example', invoiceEmail: ' ' }],
        { to: ['office@c.example'], cc: [], bcc: [] },
      ],
      ['nobody', [{}, {}], null],
      [
        'duplicates across lists',
        [
          { to: ['A@x.example'], cc: ['a@x.example', 'b@x.example'], bcc: ['B@X.example', 'c@x.example'] },
          {},
        ],
        { to: ['A@x.example'], cc: ['b@x.example'], bcc: ['c@x.example'] },
      ],
    ];
    for (const [name, args, expected] of cases) assert.deepEqual(resolveRecipients(...args), expected, name);
  });

  it('fills templates in the message’s language, amounts from exact decimals', () => {
    const doc = {
      number: 'RE-1',
      date: '2026-12-01',
      due_date: '2026-12-15',
      currency: 'EUR',
      gross_total: '1234.50',
      amount_due: '1000.10',
      client_name: 'Buyer AG',
      company_name: 'Seller GmbH',
    };
    const de = placeholderValues(doc, 'de');
    assert.equal(de.amount_due, '1.000,10\u00a0€');
    assert.equal(de.due_date, '15.12.2026');
    const en = placeholderValues(doc, 'en');
    assert.equal(en.amount_due, '€1,000.10');
    assert.equal(en.invoice_date, '1 Dec 2026');
    const cases: [string, string, string][] = [
      ['{invoice_number} for {client_name}', 'RE-1 for Buyer AG', 'known'],
      ['{unknown} {invoice_number}', '{unknown} RE-1', 'unknown kept'],
      ['{{invoice_number}}', '{RE-1}', 'braces around'],
    ];
    for (const [template, expected, name] of cases) assert.equal(fill(template, en), expected, name);
    const m = renderMessage(BUILT_IN_TEMPLATES.de.invoice, de, {});
    assert.equal(m.subject, 'Rechnung RE-1 von Seller GmbH');
    assert.match(m.text, /über 1\.000,10\u00a0€, fällig am 15\.12\.2026/);
    const own = renderMessage(
      BUILT_IN_TEMPLATES.en.invoice,
      { ...en, client_name: 'Evil\r\nBcc: x@y' },
      {
        subject: 'For {client_name}',
        message: 'Hi <b>{client_name}</b>',
      },
    );
    assert.equal(own.subject, 'For Evil Bcc: x@y', 'no line break reaches the header');
    assert.match(own.html, /Hi &lt;b&gt;Evil<br>\nBcc: x@y&lt;\/b&gt;/);
  });

  it('names the unknown placeholders of a template, once each', () => {
    const cases: [string, string[]][] = [
      ['{invoice_number} {due_date} {amount_due}', []],
      ['{nummer} and {nummer} and {x}', ['nummer', 'x']],
      ['{Invoice_Number} {} { invoice_number }', []],
      ['no placeholders', []],
    ];
    for (const [t, expected] of cases) assert.deepEqual(unknownPlaceholders(t), expected, t);
  });

  it('knows the placeholders of each kind: an offer has no due date, an invoice no offer number', () => {
    const cases: [string, 'invoice' | 'credit' | 'offer', string[]][] = [
      ['{offer_number} {offer_date} {valid_until} {gross_total}', 'offer', []],
      [
        '{offer_number} {invoice_number} {due_date} {amount_due}',
        'offer',
        ['invoice_number', 'due_date', 'amount_due'],
      ],
      ['{offer_number}', 'invoice', ['offer_number']],
      ['{invoice_number} {gross_total}', 'credit', []],
    ];
    for (const [t, kind, expected] of cases)
      assert.deepEqual(unknownPlaceholders(t, kind), expected, `${kind}: ${t}`);
    for (const lang of ['de', 'en'] as const)
      for (const part of ['subject', 'body'] as const)
        assert.deepEqual(
          unknownPlaceholders(BUILT_IN_TEMPLATES[lang].offer[part], 'offer'),
          [],
          `${lang} ${part}`,
        );
  });

  it('fills an offer’s placeholders in the message’s language', () => {
    const offer = {
      number: 'AN-7',
      date: '2026-11-02',
      valid_until: '2026-11-30',
      currency: 'EUR',
      gross_total: '1190.00',
      client_name: null,
      company_name: 'Seller GmbH',
    };
    const de = renderMessage(BUILT_IN_TEMPLATES.de.offer, offerPlaceholderValues(offer, 'de'), {});
    assert.equal(de.subject, 'Angebot AN-7 von Seller GmbH');
    assert.match(
      de.text,
      /unser Angebot AN-7 vom 02\.11\.2026 über 1\.190,00\u00a0€, gültig bis 30\.11\.2026\./,
    );
    const en = renderMessage(BUILT_IN_TEMPLATES.en.offer, offerPlaceholderValues(offer, 'en'), {
      subject: 'Quote {offer_number} for {client_name}',
    });
    assert.equal(en.subject, 'Quote AN-7 for', 'no client: empty, the subject trimmed');
    assert.match(en.text, /our offer AN-7 of 2 Nov 2026 for €1,190\.00, valid until 30 Nov 2026\./);
  });

  it('makes the HTML part from the text: escaped, paragraphs, line breaks', () => {
    assert.match(htmlOf('a & b\n\nc\nd'), /<p>a &amp; b<\/p>\n<p>c<br>\nd<\/p>/);
  });

  it('retries 4xx and unreachable relays, fails 5xx', () => {
    const cases: [Parameters<typeof smtpVerdict>[0], string][] = [
      [{ responseCode: 451 }, 'retry'],
      [{ responseCode: 421, code: 'EENVELOPE' }, 'retry'],
      [{ responseCode: 550, code: 'EENVELOPE' }, 'fail'],
      [{ responseCode: 554 }, 'fail'],
      [{ code: 'ECONNECTION' }, 'retry'],
      [{ code: 'ETIMEDOUT' }, 'retry'],
      [{ code: 'ESOCKET' }, 'retry'],
      [{}, 'retry'],
      [{ code: 'EMESSAGE' }, 'fail'],
    ];
    for (const [err, expected] of cases) assert.equal(smtpVerdict(err), expected, JSON.stringify(err));
  });

  it('backs off along the schedule, then gives up', () => {
    const delays = [10, 20, 30];
    const cases: [number, number | null][] = [
      [0, 0],
      [1, 10],
      [2, 20],
      [3, 30],
      [4, null],
    ];
    for (const [attempts, expected] of cases)
      assert.equal(retryDelay(attempts, delays), expected, String(attempts));
    assert.equal(retryDelay(1), 60_000);
    assert.equal(retryDelay(8), null);
  });
});
