import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isCurrencyCode } from './currencies.ts';
import { randomAlphanumeric } from './ids.ts';
import { summarizeFieldErrors } from './messages.ts';
import { formatAmount, microsToNumber, parseAmount, percentOf } from './money.ts';
import { growth, participation } from './program-stats.ts';
import { addDays, formatTimestamp, normalizeTimestamp } from './time.ts';

test('timestamps have six fractional digits in UTC', () => {
  assert.equal(
    formatTimestamp(Date.UTC(2025, 3, 30, 16, 44, 13) * 1000 + 123_456),
    '2025-04-30T16:44:13.123456Z',
  );
  assert.equal(normalizeTimestamp('2025-04-30T18:44:13+02:00'), '2025-04-30T16:44:13.000000Z');
  assert.equal(normalizeTimestamp('2025-04-30T16:44:13.000001Z'), '2025-04-30T16:44:13.000001Z');
  assert.equal(normalizeTimestamp('yesterday'), undefined);
  assert.equal(addDays('2024-02-28', 1), '2024-02-29');
  assert.equal(addDays('2024-03-01', -1), '2024-02-29');
});

test('money stays exact in micro-units', () => {
  assert.deepEqual(parseAmount(99.99), { ok: true, micros: 99_990_000n });
  assert.equal(microsToNumber(percentOf(99_990_000n, 30)), 29.997);
  assert.equal(formatAmount(1_124_900_000n, 'usd'), '$1,124.90');
  assert.equal(formatAmount(5_000_000n, 'EUR'), '€5.00');
});

test('currency codes are ISO 4217', () => {
  for (const code of ['USD', 'eur', 'JPY']) assert.ok(isCurrencyCode(code), code);
  for (const code of ['XYZ', 'US', 'USDD', '123']) assert.ok(!isCurrencyCode(code), code);
});

const growthCases: [number, number, number][] = [
  [0, 0, 0],
  [5, 0, 100],
  [4, 2, 100],
  [1, 2, -50],
  [2, 3, -33.33],
];
for (const [current, before, expected] of growthCases) {
  test(`growth from ${before} to ${current} is ${expected} %`, () =>
    assert.equal(growth(current, before), expected));
}

test('participation is a percentage of customers', () => {
  assert.equal(participation(1, 4), 25);
  assert.equal(participation(0, 0), 0);
});

test('the 422 message is the first error and a count of the rest', () => {
  assert.equal(summarizeFieldErrors({ a: ['A.'] }), 'A.');
  assert.equal(summarizeFieldErrors({ a: ['A.', 'B.'] }), 'A. (and 1 more error)');
  assert.equal(summarizeFieldErrors({ a: ['A.'], b: ['B.'], c: ['C.'] }), 'A. (and 2 more errors)');
});

test('generated ids are alphanumeric and of the asked length', () => {
  const ids = new Set(Array.from({ length: 500 }, () => randomAlphanumeric(12)));
  assert.equal(ids.size, 500);
  for (const id of ids) assert.match(id, /^[A-Za-z0-9]{12}$/);
});
