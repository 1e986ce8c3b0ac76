import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashPassword, scryptParameters, verifyPassword } from './passwords.ts';

const current = scryptParameters(10);
const other = scryptParameters(11);

test('a hash records its parameters and verifies only its own password', async () => {
  const stored = await hashPassword('Secret123', current);
  assert.match(stored, /^scrypt\$1024\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
  assert.deepEqual(await verifyPassword('Secret123', stored, current), { valid: true });
  assert.deepEqual(await verifyPassword('Secret124', stored, current), { valid: false });
});

test('a hash made at another cost verifies, and comes back rehashed at the current one', async () => {
  const stored = await hashPassword('Secret123', other);
  const checked = await verifyPassword('Secret123', stored, current);
  assert.equal(checked.valid, true);
  assert.match(checked.rehashed ?? '', /^scrypt\$1024\$8\$1\$/);
  assert.deepEqual(await verifyPassword('Secret123', checked.rehashed ?? '', current), { valid: true });
  assert.deepEqual(
    await verifyPassword('Wrong1234', stored, current),
    { valid: false },
    'no rehash on failure',
  );
});

test('no stored hash, or one Vouch does not write, is a failure', async () => {
  for (const stored of [
    undefined,
    null,
    '',
    'bcrypt$x',
    'scrypt$3$8$1$c2FsdA$a2V5',
    'scrypt$4194304$8$1$c2FsdA$a2V5',
  ]) {
    assert.deepEqual(await verifyPassword('Secret123', stored, current), { valid: false }, String(stored));
  }
});

test('no stored hash still costs a hash, so an unknown account answers no sooner', async () => {
  // At 2^14 a hash takes milliseconds; a check that skipped it would take microseconds.
  const cost = scryptParameters(14);
  const timed = async (work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    return performance.now() - started;
  };
  const hashes: number[] = [];
  for (let i = 0; i < 3; i++) hashes.push(await timed(() => hashPassword('Secret123', cost)));
  const unknown = await timed(() => verifyPassword('Secret123', undefined, cost));
  assert.ok(
    unknown >= Math.min(...hashes) / 4,
    `an unknown account took ${unknown.toFixed(2)} ms, a hash ${Math.min(...hashes).toFixed(2)} ms`,
  );
});
