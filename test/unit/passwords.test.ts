import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { it } from 'node:test';
import {
  HashingBusyError,
  hashPassword,
  passwordProblem,
  verifyPassword,
} from '../../src/modules/users/passwords.js';

it('hashes with scrypt and verifies only the right password', async () => {
  const hash = await hashPassword('correct horse battery staple');
  assert.match(hash, /^scrypt\$65536\$8\$2\$[\w-]{22}\$[\w-]{43}$/);
  assert.notEqual(await hashPassword('correct horse battery staple'), hash, 'salted');
  assert.equal(await verifyPassword('correct horse battery staple', hash), true);
  assert.equal(await verifyPassword('correct horse battery stapl', hash), false);
  assert.equal(await verifyPassword('correct horse battery staple', null), false, 'no hash: no match');
  assert.equal(await verifyPassword('x', 'bcrypt$2b$10$abc'), false);
  assert.equal(await verifyPassword('x', 'scrypt$3$8$1$AAAA$AAAA'), false, 'N not a power of two');
});

it('new passwords: at least 10 characters (code points), at most 1024', () => {
  assert.equal(passwordProblem('123456789'), 'too_short');
  assert.equal(passwordProblem('😀'.repeat(9)), 'too_short');
  assert.equal(passwordProblem('1234567890'), null);
  assert.equal(passwordProblem('x'.repeat(1025)), 'too_long');
});

it('a burst of checks beyond what may wait is refused at once, the rest are answered', async () => {
  // A cheap hash (N=2^10): verification uses the parameters stored in it, and the test is
  // about the slots, not the cost of each check.
  const salt = randomBytes(16);
  const key = scryptSync('correct horse battery staple', salt, 32, { N: 1024, r: 8, p: 1 });
  const hash = `scrypt$1024$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
  const results = await Promise.allSettled(
    Array.from({ length: 70 }, (_, i) =>
      verifyPassword(i === 0 ? 'correct horse battery staple' : 'wrong', hash),
    ),
  );
  const busy = results.filter((r) => r.status === 'rejected');
  assert.equal(busy.length, 70 - 2 - 64);
  for (const r of busy) assert.ok((r as PromiseRejectedResult).reason instanceof HashingBusyError);
  assert.deepEqual(results[0], { status: 'fulfilled', value: true });
  // Slots are all given back: later checks run again.
  assert.equal(await verifyPassword('correct horse battery staple', hash), true);
});
