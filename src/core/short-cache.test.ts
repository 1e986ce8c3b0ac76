import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestDigest } from './request-digest.ts';
import { ShortCache } from './short-cache.ts';

test('a short cache reuses a load for its lifetime, per key, and forgets failures and overflow', async () => {
  let now = 1_000;
  const cache = new ShortCache<number, string>({ ttlMs: 1_000, capacity: 2, now: () => now });
  let loads = 0;
  const load = (value: string) => () => {
    loads += 1;
    return Promise.resolve(value);
  };
  assert.equal(await cache.get(1, load('a')), 'a');
  now += 999;
  assert.equal(await cache.get(1, load('b')), 'a', 'reused within its lifetime');
  assert.equal(await cache.get(2, load('c')), 'c', 'keys are apart');
  now += 1;
  assert.equal(await cache.get(1, load('d')), 'd', 'loaded again once it expired');
  assert.equal(loads, 3);

  await assert.rejects(cache.get(3, () => Promise.reject(new Error('down'))));
  assert.equal(await cache.get(3, load('e')), 'e', 'a failed load is not kept');
  // Over capacity the cache starts over: key 2 is loaded again.
  assert.equal(await cache.get(2, load('f')), 'f');
});

test('a request digest ignores key order and absent fields, and keeps array order', () => {
  const digest = requestDigest({ a: 1, b: { c: [1, 2], d: 'x' }, e: undefined });
  assert.equal(requestDigest({ b: { d: 'x', c: [1, 2] }, a: 1 }), digest);
  assert.notEqual(requestDigest({ a: 1, b: { c: [2, 1], d: 'x' } }), digest);
  assert.notEqual(requestDigest({ a: '1', b: { c: [1, 2], d: 'x' } }), digest);
  assert.notEqual(requestDigest({ a: 1, b: { c: [1, 2], d: 'x' }, e: null }), digest);
  assert.equal(requestDigest({ n: 10n }), requestDigest({ n: '10' }));
});
