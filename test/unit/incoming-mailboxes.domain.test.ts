import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  documentParts,
  type MimeNode,
  messageKey,
  retryDelayMs,
  senderAllowed,
} from '../../src/modules/incoming-mailboxes/incoming-mailboxes.domain.js';

const att = (part: string, type: string, filename?: string, disposition = 'attachment'): MimeNode => ({
  part,
  type,
  disposition,
  ...(filename ? { dispositionParameters: { filename } } : {}),
  size: 100,
});

describe('documentParts', () => {
  const cases: { name: string; root: MimeNode; want: [string, string, string][] }[] = [
    {
      name: 'text body and a PDF attachment',
      root: {
        type: 'multipart/mixed',
        childNodes: [{ part: '1', type: 'text/plain' }, att('2', 'application/pdf', 'a.pdf')],
      },
      want: [['2', 'a.pdf', 'application/pdf']],
    },
    {
      name: 'an e-invoice as the body of a message of one part',
      root: { type: 'application/xml' },
      want: [['1', 'document-1-1.xml', 'application/xml']],
    },
    {
      name: 'XML, PDF and image nested in alternative and related parts',
      root: {
        type: 'multipart/mixed',
        childNodes: [
          {
            type: 'multipart/alternative',
            childNodes: [
              { part: '1.1', type: 'text/plain' },
              { part: '1.2', type: 'text/html' },
            ],
          },
          att('2', 'text/xml', 'xr.xml'),
          att('3', 'image/jpg', 'scan.jpg'),
          att('4', 'application/octet-stream', 'INVOICE.PDF'),
        ],
      },
      want: [
        ['2', 'xr.xml', 'text/xml'],
        ['3', 'scan.jpg', 'image/jpeg'],
        ['4', 'INVOICE.PDF', 'application/pdf'],
      ],
    },
    {
      name: 'an inline logo without a name and other types are not documents',
      root: {
        type: 'multipart/related',
        childNodes: [
          { part: '1', type: 'text/html' },
          { part: '2', type: 'image/png', disposition: 'inline' },
          att('3', 'application/zip', 'x.zip'),
          att('4', 'application/octet-stream', 'x.exe'),
        ],
      },
      want: [],
    },
    {
      name: 'a named inline image is taken',
      root: {
        type: 'multipart/mixed',
        childNodes: [
          { part: '1', type: 'image/png', disposition: 'inline', parameters: { name: 'scan.png' } },
        ],
      },
      want: [['1', 'scan.png', 'image/png']],
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      assert.deepEqual(
        documentParts(c.root).map((p) => [p.part, p.filename, p.contentType]),
        c.want,
      );
    });
});

describe('senderAllowed', () => {
  const cases: [string | undefined, string[], boolean][] = [
    ['a@b.de', [], true],
    ['Billing@Supplier.DE', ['billing@supplier.de'], true],
    ['other@supplier.de', ['billing@supplier.de'], false],
    ['x@supplier.de', ['supplier.de'], true],
    ['x@mail.supplier.de', ['@supplier.de'], true],
    ['x@notsupplier.de', ['supplier.de'], false],
    [undefined, ['supplier.de'], false],
    ['broken', ['supplier.de'], false],
  ];
  for (const [sender, list, want] of cases)
    it(`${sender} with [${list}] → ${want}`, () => assert.equal(senderAllowed(sender, list), want));
});

describe('retryDelayMs', () => {
  const cases: [number, number][] = [
    [0, 0],
    [1, 60_000],
    [2, 120_000],
    [3, 240_000],
    [7, 3_600_000],
    [50, 3_600_000],
  ];
  for (const [failures, want] of cases)
    it(`after ${failures} failures: ${want} ms`, () => assert.equal(retryDelayMs(failures), want));
});

describe('messageKey', () => {
  it('strips angle brackets and blanks, falls back, caps the length', () => {
    assert.equal(messageKey(' <a@b> ', 'f'), 'a@b');
    assert.equal(messageKey(undefined, 'uid:INBOX:7'), 'uid:INBOX:7');
    assert.equal(messageKey('<>', 'f'), 'f');
    assert.equal(messageKey('x'.repeat(600), 'f').length, 500);
  });
});
