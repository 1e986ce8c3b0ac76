import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalEmail, guardedStatus, isSelfReferral, rejectionReason } from './self-referral.ts';

test('isSelfReferral compares mailboxes, not spellings', () => {
  const cases: [string | null | undefined, string | null | undefined, boolean][] = [
    ['amy@example.com', 'amy@example.com', true],
    ['Amy@Example.COM', 'amy@example.com', true],
    ['  amy@example.com ', 'amy@example.com', true],
    ['a.my@gmail.com', 'amy@gmail.com', true],
    ['amy+shop@gmail.com', 'amy@gmail.com', true],
    ['A.My+x@googlemail.com', 'amy@gmail.com', true],
    ['amy+tag@outlook.com', 'amy@outlook.com', true],
    ['amy+tag@icloud.com', 'AMY@icloud.com', true],
    // Dots matter outside Gmail; tags matter where the provider is not known to drop them.
    ['a.my@outlook.com', 'amy@outlook.com', false],
    ['a.my@example.com', 'amy@example.com', false],
    ['amy+tag@example.com', 'amy@example.com', false],
    ['amy@gmail.com', 'amy@example.com', false],
    ['bob@gmail.com', 'amy@gmail.com', false],
    [null, 'amy@example.com', false],
    ['amy@example.com', null, false],
    [undefined, undefined, false],
    ['', '', false],
  ];
  for (const [customer, referrer, expected] of cases) {
    assert.equal(isSelfReferral(customer, referrer), expected, `${customer} vs ${referrer}`);
  }
});

test('canonicalEmail keeps unknown shapes as lower-case text', () => {
  assert.equal(canonicalEmail('NOT-AN-ADDRESS'), 'not-an-address');
  assert.equal(canonicalEmail('x@'), 'x@');
  assert.equal(canonicalEmail(''), undefined);
});

test('a self-referral rejects every reward, with the reason shown', () => {
  const table: [string, boolean, string, string | undefined][] = [
    ['ok', false, 'ok', undefined],
    ['review_period', false, 'review_period', undefined],
    ['paid', false, 'paid', undefined],
    ['ok', true, 'rejected', 'self_referral'],
    ['review_period', true, 'rejected', 'self_referral'],
    ['paid', true, 'rejected', 'self_referral'],
  ];
  for (const [decided, self, status, reason] of table) {
    assert.equal(guardedStatus(decided, self), status);
    assert.equal(rejectionReason(guardedStatus(decided, self)), reason);
  }
});
