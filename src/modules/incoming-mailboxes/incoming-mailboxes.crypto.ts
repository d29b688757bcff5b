import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const keys = new Map<string, Buffer>();

/** 256-bit key derived from SECRET_KEY, apart from its other uses (HKDF info). */
function keyFor(secretKey: string): Buffer {
  let key = keys.get(secretKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secretKey, 'incoming-mailbox-passwords', 'aes-256-gcm v1', 32));
    keys.set(secretKey, key);
  }
  return key;
}

/** `v1:` + base64(iv | tag | ciphertext); the account and mailbox are authenticated data. */
export function encryptPassword(secretKey: string, plain: string, accountId: number): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secretKey), iv);
  cipher.setAAD(Buffer.from(`account:${accountId}`));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

export function decryptPassword(secretKey: string, stored: string, accountId: number): string {
  const [version, data] = stored.split(':', 2);
  if (version !== VERSION || !data) throw new Error('unknown password encryption format');
  const raw = Buffer.from(data, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyFor(secretKey), raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(`account:${accountId}`));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
