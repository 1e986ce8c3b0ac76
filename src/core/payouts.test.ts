import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  approvedBy,
  exportAmount,
  minorUnitDigits,
  payoutDetailsProblems,
  payoutMinimumOf,
  paysNet,
} from './payouts.ts';

describe('paysNet', () => {
  test('pays a net above zero that reaches the minimum; a clawback alone waits', () => {
    const cases: [bigint, bigint, boolean][] = [
      [12_500_000n, 10_000_000n, true],
      [10_000_000n, 10_000_000n, true],
      [9_999_999n, 10_000_000n, false],
      [1n, 0n, true],
      [0n, 0n, false],
      [-1n, 0n, false],
      [-7_500_000n, -10_000_000n, false],
    ];
    for (const [net, minimum, paid] of cases)
      assert.equal(paysNet(net, minimum), paid, `${net} vs ${minimum}`);
  });
});

describe('payoutMinimumOf', () => {
  const table: [Record<string, number | string>, string, bigint][] = [
    [{}, 'USD', 0n],
    [{ USD: 50 }, 'usd', 50_000_000n],
    [{ USD: 50 }, 'EUR', 0n],
    [{ EUR: '12.5' }, 'EUR', 12_500_000n],
    [{ EUR: -3 }, 'EUR', 0n],
  ];
  for (const [minimums, currency, micros] of table)
    test(`${JSON.stringify(minimums)} ${currency} → ${micros}`, () =>
      assert.equal(payoutMinimumOf(minimums, currency), micros));
});

describe('exportAmount: the one rounding, to the currency minor unit, half up', () => {
  const table: [bigint, string, string][] = [
    [12_345_600n, 'USD', '12.35'],
    [12_344_999n, 'USD', '12.34'],
    [12_345_000n, 'USD', '12.35'],
    [1_000_500_000n, 'JPY', '1001'],
    [1_234_567n, 'KWD', '1.235'],
    [5_000n, 'USD', '0.01'],
    [4_999n, 'USD', '0.00'],
    [-2_500_000n, 'EUR', '-2.50'],
    [0n, 'EUR', '0.00'],
    [-12_345_000n, 'USD', '-12.34'],
    [-12_345_001n, 'USD', '-12.35'],
    [-1_234_500_000n, 'JPY', '-1234'],
    [-1_234_500_001n, 'JPY', '-1235'],
    [1_125_899_906_842_624n, 'USD', '1125899906.84'],
    [-1_125_899_906_845_000n, 'USD', '-1125899906.84'],
    [9_007_199_254_740_993_000n, 'USD', '9007199254740.99'],
  ];
  for (const [micros, currency, text] of table)
    test(`${micros} ${currency} → ${text}`, () => {
      assert.equal(exportAmount(micros, currency), text);
      // Databases hand amounts back as numbers when a double holds them exactly.
      if (Number.isSafeInteger(Number(micros)) && BigInt(Number(micros)) === micros)
        assert.equal(exportAmount(Number(micros), currency), text);
    });
  test('minor units', () => {
    assert.deepEqual(['USD', 'JPY', 'KWD', 'EUR'].map(minorUnitDigits), [2, 0, 3, 2]);
  });
});

describe('payout terms and details', () => {
  test('approvedBy: now less the terms', () => {
    assert.equal(approvedBy('2026-03-31T10:00:00.123456Z', 30), '2026-03-01T10:00:00.123456Z');
    assert.equal(approvedBy('2026-03-31T10:00:00.123456Z', 0), '2026-03-31T10:00:00.123456Z');
  });
  const table: [Parameters<typeof payoutDetailsProblems>[0], object, string[]][] = [
    ['paypal', { email: 'a@b.c' }, []],
    ['paypal', {}, ['payout_details.email']],
    ['wise', { email: 'a@b.c' }, []],
    ['wise', { iban: 'DE89370400440532013000' }, ['payout_details.account_holder']],
    ['wise', {}, ['payout_details.email']],
    ['bank_transfer', { account_holder: 'A', account_number: '1' }, []],
    ['bank_transfer', {}, ['payout_details.account_holder', 'payout_details.iban']],
    ['manual', {}, []],
  ];
  for (const [method, details, fields] of table)
    test(`${method} ${JSON.stringify(details)} → ${fields.join(', ') || 'ok'}`, () =>
      assert.deepEqual(
        payoutDetailsProblems(method, details, '').map((found) => found.field),
        fields,
      ));
});
