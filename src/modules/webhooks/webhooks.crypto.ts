import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

const VERSION = 'v1';
const keys = new Map<string, Buffer>();

/** 256-bit key derived from SECRET_KEY; HKDF keeps it apart from any other use of that setting. */
function keyFor(secretKey: string): Buffer {
  let key = keys.get(secretKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secretKey, 'webhook-signing-secrets', 'aes-256-gcm v1', 32));
    keys.set(secretKey, key);
  }
  return key;
}

/**
 * `v1:` + base64(iv | tag | ciphertext). The account id is authenticated data, so a ciphertext
 * copied into another account's row does not decrypt.
 */
export function encryptSecret(secretKey: string, plain: string, accountId: number): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secretKey), iv);
  cipher.setAAD(Buffer.from(`account:${accountId}`));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

export function decryptSecret(secretKey: string, stored: string, accountId: number): string {
  const [version, data] = stored.split(':', 2);
  if (version !== VERSION || !data) throw new Error('unknown secret encryption format');
  const raw = Buffer.from(data, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyFor(secretKey), raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(`account:${accountId}`));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/**
 * The `webhook-signature` header: one `v1,<base64>` per secret, space-separated, so a
 * receiver that still holds the previous secret verifies during a rotation.
 */
export function signatureHeader(secrets: string[], messageId: string, timestamp: Date, body: string): string {
  return secrets.map((s) => new Webhook(s).sign(messageId, timestamp, body)).join(' ');
}
