import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from './errors.ts';
import { renderFieldErrors } from './messages.ts';
import {
  amountOrThrow,
  divideRoundingHalfUp,
  formatAmount,
  microsFrom,
  microsToNumber,
  microsToText,
  parseAmount,
  percentOf,
} from './money.ts';

test('parseAmount keeps what is sent or says why not', () => {
  const cases: [unknown, ReturnType<typeof parseAmount>][] = [
    ['999999999999.999999', { ok: true, micros: 999_999_999_999_999_999n }],
    ['-999999999999.999999', { ok: true, micros: -999_999_999_999_999_999n }],
    [999999999999.9999, { ok: true, micros: 999_999_999_999_999_900n }],
    ['1000000000000', { ok: false, reason: 'range' }],
    [1e12, { ok: false, reason: 'range' }],
    [-1e12, { ok: false, reason: 'range' }],
    [1e13, { ok: false, reason: 'range' }],
    [1e300, { ok: false, reason: 'range' }],
    ['1e999999', { ok: false, reason: 'range' }],
    [10.1234567, { ok: false, reason: 'decimals' }],
    ['10.1234567', { ok: false, reason: 'decimals' }],
    [0.0000001, { ok: false, reason: 'decimals' }],
    ['1e-300', { ok: false, reason: 'decimals' }],
    [0.1 + 0.2, { ok: false, reason: 'decimals' }],
    [10.123456, { ok: true, micros: 10_123_456n }],
    ['10.50', { ok: true, micros: 10_500_000n }],
    ['10.1234560000', { ok: true, micros: 10_123_456n }],
    [99.99, { ok: true, micros: 99_990_000n }],
    [0.000001, { ok: true, micros: 1n }],
    ['1e5', { ok: true, micros: 100_000_000_000n }],
    ['1.5E-6', { ok: false, reason: 'decimals' }],
    ['1.5E-5', { ok: true, micros: 15n }],
    [-1, { ok: true, micros: -1_000_000n }],
    [0, { ok: true, micros: 0n }],
    ['-0', { ok: true, micros: 0n }],
    ['0.0000000', { ok: true, micros: 0n }],
    ['.5', { ok: true, micros: 500_000n }],
    ['5.', { ok: true, micros: 5_000_000n }],
    [' 7 ', { ok: true, micros: 7_000_000n }],
    ['', { ok: false, reason: 'numeric' }],
    ['.', { ok: false, reason: 'numeric' }],
    ['abc', { ok: false, reason: 'numeric' }],
    ['0x10', { ok: false, reason: 'numeric' }],
    ['1,5', { ok: false, reason: 'numeric' }],
    ['NaN', { ok: false, reason: 'numeric' }],
    ['Infinity', { ok: false, reason: 'numeric' }],
    [Number.NaN, { ok: false, reason: 'numeric' }],
    [Number.POSITIVE_INFINITY, { ok: false, reason: 'numeric' }],
    [null, { ok: false, reason: 'numeric' }],
    [true, { ok: false, reason: 'numeric' }],
    [[1], { ok: false, reason: 'numeric' }],
  ];
  for (const [value, expected] of cases) assert.deepEqual(parseAmount(value), expected, String(value));
});

test('amountOrThrow answers a 422 on the field in Laravel wording', () => {
  const refusal = (value: unknown, options?: { allowNegative?: boolean }) => {
    try {
      amountOrThrow(value, 'amount', options);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { status: error.status, fields: renderFieldErrors(error.problems) };
    }
    return undefined;
  };
  assert.deepEqual(refusal('abc'), {
    status: 422,
    fields: { amount: ['The amount field must be a number.'] },
  });
  assert.deepEqual(refusal(10.1234567), {
    status: 422,
    fields: { amount: ['The amount field must not have more than 6 decimal places.'] },
  });
  assert.deepEqual(refusal(1e13), {
    status: 422,
    fields: { amount: ['The amount field must be less than 1000000000000.'] },
  });
  assert.deepEqual(refusal(-1), {
    status: 422,
    fields: { amount: ['The amount field must be at least 0.'] },
  });
  assert.equal(refusal(-1, { allowNegative: true }), undefined);
  assert.equal(amountOrThrow('10.50', 'amount'), 10_500_000n);
  assert.equal(amountOrThrow(-1, 'amount', { allowNegative: true }), -1_000_000n);
});

test('micro-units come back as the nearest JSON number and exact text', () => {
  assert.equal(microsToNumber(10_123_456n), 10.123456);
  assert.equal(microsToNumber(10_500_000), 10.5);
  assert.equal(microsToNumber(29_997_000n), 29.997);
  assert.equal(microsToNumber(999_999_999_999_999_999n), Number('999999999999.999999'));
  assert.equal(microsToNumber(3n * 999_999_999_999_999_999n), Number('2999999999999.999997'));
  assert.equal(microsToNumber(-1n), -0.000001);
  assert.equal(microsToText(999_999_999_999_999_999n), '999999999999.999999');
  assert.equal(microsToText(10n ** 21n), '1000000000000000');
  assert.equal(microsToText(-1_500_000n), '-1.5');
  assert.equal(microsToText(0n), '0');
  assert.equal(microsFrom(12), 12n);
  assert.equal(microsFrom(9_007_199_254_740_993n), 9_007_199_254_740_993n);
  assert.equal(microsFrom('123456789012345678901'), 123_456_789_012_345_678_901n);
  assert.equal(microsFrom(null), 0n);
  assert.throws(() => microsFrom(1.5), RangeError);
});

test('micro-units as numbers read as the same text as bigints', () => {
  const values = [
    0, -0, 1, -1, 10, 999_999, 1_000_000, -1_000_000, 1_000_001, 10_500_000, 29_997_000, 123_456_789,
  ];
  values.push(
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER - 1,
    9_007_199_254_000_000,
  );
  for (let i = 0; i < 2000; i++) values.push(Math.floor((i * 7_919 + i * i * 104_729) % 2e12) - 1e12);
  for (const value of values) assert.equal(microsToText(value), microsToText(BigInt(value)), String(value));
});

test('formatAmount is exact however large the sum', () => {
  assert.equal(formatAmount(1_124_900_000n, 'usd'), '$1,124.90');
  assert.equal(formatAmount(1_124_900_000, 'usd'), '$1,124.90');
  assert.equal(formatAmount(5_000_000n, 'EUR'), '€5.00');
  assert.equal(formatAmount(9n * 999_999_999_999_999_999n, 'usd'), '$9,000,000,000,000.00');
  assert.equal(formatAmount(9n * 999_999_999_999_990_000n, 'usd'), '$8,999,999,999,999.91');
  assert.equal(formatAmount(10n ** 21n - 10_000n, 'usd'), '$999,999,999,999,999.99');
  assert.equal(formatAmount(2_005_000n, 'usd'), '$2.01');
});

test('percentages are exact and rounded half up to a micro-unit', () => {
  assert.equal(percentOf(99_990_000n, 30), 29_997_000n);
  assert.equal(percentOf(999_999_999_999_999_999n, 20), 200_000_000_000_000_000n);
  assert.equal(percentOf(999_999_999_999_999_999n, 33.333333), 333_333_330_000_000_000n); // …999.666 rounds up
  assert.equal(percentOf(5n, 10), 1n); // 0.5 micro rounds up
  assert.equal(percentOf(4n, 10), 0n);
  assert.equal(percentOf(1_000_000n, '12.5'), 125_000n);
  assert.equal(divideRoundingHalfUp(-5n, 10n), 0n);
  assert.equal(divideRoundingHalfUp(-6n, 10n), -1n);
  assert.equal(divideRoundingHalfUp(15n, 10n), 2n);
  assert.equal(divideRoundingHalfUp(7n, -2n), -3n);
});
