import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Password hashing with scrypt, the memory-hard function Node has built in: no native
 * dependency to build (argon2 would need @node-rs/argon2's prebuilt binaries or a compiler;
 * Node 20 has no argon2). Parameters from OWASP's password storage cheat sheet
 * (N=2^16, r=8, p=2: 64 MiB and about a tenth of a second per hash). They are stored in each
 * hash, so raising them later leaves existing hashes readable.
 */
const N = 2 ** 16;
const R = 8;
const P = 2;
const KEY_LENGTH = 32;
const MAX_MEM = 256 * 1024 * 1024;

/** Bounds of a new password (NIST SP 800-63B: at least 8; we ask 10, allow long passphrases). */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 1024;

/**
 * Hashes at once per process, and hashes that may wait. scrypt runs on libuv's thread pool
 * (4 threads, shared with file and DNS work): a burst of sign-ins, allowed by the throttle
 * before their failures are recorded, must neither hold every thread nor queue without end.
 */
const MAX_RUNNING = 2;
const MAX_WAITING = 64;
let running = 0;
const waiting: Array<() => void> = [];

/** More sign-ins than the process can hash: try again in a moment. */
export class HashingBusyError extends Error {
  override readonly name = 'HashingBusyError';
}

async function slot(): Promise<() => void> {
  if (running >= MAX_RUNNING) {
    if (waiting.length >= MAX_WAITING) throw new HashingBusyError('too many password checks at once');
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running++;
  // A finished hash hands its slot straight to the next in line (running stays counted).
  return () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
}

async function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  const release = await slot();
  try {
    return await scryptAsync(password, salt, n, r, p);
  } finally {
    release();
  }
}

function scryptAsync(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { N: n, r, p, maxmem: MAX_MEM }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A hash of no one's password: verified when there is no user, so that takes as long. */
let dummy: Promise<string> | undefined;
const dummyHash = () => {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  return dummy;
};

/**
 * Whether `password` matches `stored`. Without a stored hash (unknown e-mail, no password
 * set) a dummy hash is verified all the same, so the answer takes the same time.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const hash = stored ?? (await dummyHash());
  const parts = hash.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // Parameters come from the database (or an imported file): absurd ones are no match, not a
  // process that allocates gigabytes.
  if (!(n >= 2 && n <= 2 ** 20 && r >= 1 && r <= 32 && p >= 1 && p <= 16)) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  let key: Buffer;
  try {
    key = await derive(password, salt, n, r, p);
  } catch (err) {
    if (err instanceof HashingBusyError) throw err;
    return false;
  }
  return key.length === expected.length && timingSafeEqual(key, expected) && stored != null;
}

/** Why a new password is refused, or null. */
export function passwordProblem(password: string): 'too_short' | 'too_long' | null {
  if ([...password].length < PASSWORD_MIN) return 'too_short';
  if (password.length > PASSWORD_MAX) return 'too_long';
  return null;
}
