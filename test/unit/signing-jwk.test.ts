import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { it } from 'node:test';
import { newSigningJwk } from '../../src/modules/oauth/oauth.provider.js';

it('the OAuth signing key is a valid P-256 JWK: 32-byte coordinates and d, signs and verifies', () => {
  const data = Buffer.from('signed');
  // 3,000 keys: about twelve have a private scalar below 2^248 (a first byte of 0), whose d must
  // still be 32 bytes; none among them all has odds of 1 in 100,000.
  for (let i = 0; i < 3000; i++) {
    const jwk = newSigningJwk();
    for (const k of ['x', 'y', 'd'] as const) assert.equal(Buffer.from(jwk[k], 'base64url').length, 32, k);
    const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
    assert.equal(privateKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    const { d: _d, ...pub } = jwk;
    const publicKey = createPublicKey({ key: pub, format: 'jwk' });
    // The public point is the one of the private scalar.
    assert.deepEqual(createPublicKey(privateKey).export({ format: 'jwk' }), pub);
    if (i < 20) assert.ok(verify('sha256', data, publicKey, sign('sha256', data, privateKey)));
  }
});
