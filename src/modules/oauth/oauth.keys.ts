import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The provider's signing key at rest: AES-256-GCM under a key derived from SECRET_KEY (HKDF,
 * apart from every other use of that setting), so a copy of the database or a backup holds
 * no usable private key. Stored as `{ "enc": "v1:<base64 iv | tag | ciphertext>" }`.
 */
const VERSION = 'v1';

const keyFor = (secretKey: string) =>
  Buffer.from(hkdfSync('sha256', secretKey, 'oauth-signing-key', 'aes-256-gcm v1', 32));

export function sealJwk(secretKey: string, jwk: object): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secretKey), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
  const enc = `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  return JSON.stringify({ enc });
}

/** The key stored in `payload`: sealed (the key's JSON), or plain as stored before; null if it
 * does not open with this SECRET_KEY. */
export function openJwk(
  secretKey: string,
  payload: string,
): { jwk: Record<string, string>; sealed: boolean } | null {
  const stored = JSON.parse(payload) as Record<string, string>;
  if (typeof stored.enc !== 'string') return { jwk: stored, sealed: false };
  const [version, data] = stored.enc.split(':', 2);
  if (version !== VERSION || !data) return null;
  try {
    const raw = Buffer.from(data, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', keyFor(secretKey), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    return { jwk: JSON.parse(plain) as Record<string, string>, sealed: true };
  } catch {
    return null;
  }
}
