import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  decryptSecret,
  encryptSecret,
  newSigningSecret,
  signatureHeader,
} from '../../src/modules/webhooks/webhooks.crypto.js';

describe('webhook secrets at rest', () => {
  const key = 'server key';
  const secret = newSigningSecret();

  it('round-trips, with a fresh IV each time', () => {
    const a = encryptSecret(key, secret, 1);
    const b = encryptSecret(key, secret, 1);
    assert.notEqual(a, b);
    assert.equal(decryptSecret(key, a, 1), secret);
    assert.equal(decryptSecret(key, b, 1), secret);
    assert.ok(!a.includes(secret.slice(6)));
  });

  it('refuses another server key, another account, a changed ciphertext or an unknown format', () => {
    const stored = encryptSecret(key, secret, 1);
    assert.throws(() => decryptSecret('other key', stored, 1));
    assert.throws(() => decryptSecret(key, stored, 2));
    const raw = Buffer.from(stored.slice(3), 'base64');
    raw[raw.length - 1]! ^= 1;
    assert.throws(() => decryptSecret(key, `v1:${raw.toString('base64')}`, 1));
    assert.throws(() => decryptSecret(key, secret, 1));
  });
});

describe('webhook signatures', () => {
  const id = 'msg_0123';
  const body = '{"id":"msg_0123","event":"task:created","occurred_at":"2026-01-01T00:00:00.000Z","data":{}}';
  const now = new Date();
  const headers = (sig: string) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': sig,
  });

  it('is v1,base64(HMAC-SHA256(key, id.timestamp.body)) as Standard Webhooks verifies it', async () => {
    const secret = newSigningSecret();
    const sig = signatureHeader([secret], id, now, body);
    const { createHmac } = await import('node:crypto');
    const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`${id}.${Math.floor(now.getTime() / 1000)}.${body}`)
      .digest('base64');
    assert.equal(sig, `v1,${expected}`);
    new Webhook(secret).verify(body, headers(sig));
  });

  it('carries one signature per secret, each verifying on its own', () => {
    const [a, b] = [newSigningSecret(), newSigningSecret()];
    const sig = signatureHeader([a, b], id, now, body);
    assert.equal(sig.split(' ').length, 2);
    new Webhook(a).verify(body, headers(sig));
    new Webhook(b).verify(body, headers(sig));
    assert.throws(() => new Webhook(newSigningSecret()).verify(body, headers(sig)));
  });
});
