import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type CommissionAction,
  commissionMoveFigures,
  moveCommission,
  newCommissionFigures,
  shownCommissionStatus,
} from './commission-status.ts';

const now = '2026-03-10T12:00:00.000000Z';
const before = '2026-03-01T00:00:00.000000Z';
const later = '2026-04-01T00:00:00.000000Z';

describe('moveCommission', () => {
  // [from, in payout, due at, action, auto approve, expected: stored status or 'refused']
  const table: [string, boolean, string | null, CommissionAction, boolean, string][] = [
    ['review_period', false, later, 'approve', true, 'ok'],
    ['ok', false, null, 'approve', true, 'ok'],
    ['paid', false, null, 'approve', true, 'refused'],
    ['voided', false, null, 'approve', true, 'refused'],
    ['denied', false, null, 'approve', true, 'refused'],
    ['review_period', false, later, 'deny', true, 'denied'],
    ['ok', false, null, 'deny', true, 'denied'],
    ['ok', true, null, 'deny', true, 'refused'],
    ['denied', false, null, 'deny', true, 'denied'],
    ['paid', false, null, 'deny', true, 'refused'],
    ['voided', false, null, 'deny', true, 'refused'],
    ['review_period', false, later, 'void', true, 'voided'],
    ['ok', false, null, 'void', true, 'voided'],
    ['ok', true, null, 'void', true, 'refused'],
    ['paid', false, null, 'void', true, 'refused'],
    ['denied', false, null, 'void', true, 'denied'],
    ['review_period', false, before, 'settle', true, 'ok'],
    ['review_period', false, before, 'settle', false, 'review_period'],
    ['review_period', false, later, 'settle', true, 'review_period'],
    ['ok', false, null, 'settle', true, 'ok'],
    ['ok', true, null, 'pay', true, 'paid'],
    ['review_period', false, later, 'pay', true, 'refused'],
    ['paid', false, null, 'pay', true, 'refused'],
  ];
  for (const [from, inPayout, dueAt, action, autoApprove, expected] of table) {
    test(`${action} ${from}${inPayout ? ' (in a payout)' : ''}${autoApprove ? '' : ' (no auto approve)'} → ${expected}`, () => {
      const move = moveCommission({ status: from, dueAt, inPayout }, action, { now, autoApprove });
      if (expected === 'refused') {
        assert.equal(move.ok, false);
        const verbs = { approve: 'approved', deny: 'denied', void: 'voided', settle: '', pay: 'paid' };
        if (!move.ok) assert.equal(move.verb, verbs[action]);
      } else {
        assert.deepEqual(move, { ok: true, to: expected, changed: expected !== from });
      }
    });
  }
});

describe('shownCommissionStatus', () => {
  const table: [string, string | null, boolean, string][] = [
    ['review_period', later, true, 'pending'],
    ['review_period', before, true, 'approved'],
    ['review_period', before, false, 'pending'],
    ['ok', null, true, 'approved'],
    ['paid', null, true, 'paid'],
    ['denied', null, true, 'denied'],
    ['voided', null, false, 'voided'],
  ];
  for (const [status, dueAt, auto, shown] of table) {
    test(`${status} due ${dueAt ?? 'never'} auto ${auto} shows ${shown}`, () => {
      assert.equal(shownCommissionStatus({ status, dueAt }, now, auto), shown);
    });
  }
});

describe('commissionMoveFigures', () => {
  const move = (from: string, to: string, counted = true) => ({
    partnerId: 7,
    units: 'USD',
    amountMicros: 5_000_000n,
    from,
    to,
    counted,
  });
  test('pending → approved moves the amount from pending to not paid', () => {
    assert.deepEqual(commissionMoveFigures([move('review_period', 'ok')]), [
      { kind: 'partner', id: 7, metric: 'commission_not_paid:usd', value: 5_000_000n },
      { kind: 'partner', id: 7, metric: 'commission_pending:usd', value: -5_000_000n },
    ]);
  });
  test('approved → paid, approved → denied, pending → voided', () => {
    assert.deepEqual(commissionMoveFigures([move('ok', 'paid')]), [
      { kind: 'partner', id: 7, metric: 'commission_not_paid:usd', value: -5_000_000n },
      { kind: 'partner', id: 7, metric: 'commission_paid:usd', value: 5_000_000n },
    ]);
    assert.deepEqual(commissionMoveFigures([move('ok', 'denied')]), [
      { kind: 'partner', id: 7, metric: 'commission_not_paid:usd', value: -5_000_000n },
    ]);
    assert.deepEqual(commissionMoveFigures([move('review_period', 'voided')]), [
      { kind: 'partner', id: 7, metric: 'commission_pending:usd', value: -5_000_000n },
    ]);
  });
  test('no move, or a reward of an archived sale, changes nothing; several moves add up', () => {
    assert.deepEqual(commissionMoveFigures([move('ok', 'ok'), move('review_period', 'ok', false)]), []);
    assert.deepEqual(commissionMoveFigures([move('review_period', 'ok'), move('ok', 'paid')]), [
      { kind: 'partner', id: 7, metric: 'commission_paid:usd', value: 5_000_000n },
      { kind: 'partner', id: 7, metric: 'commission_pending:usd', value: -5_000_000n },
    ]);
  });
  test('a new commission counts in its status; a denied one in none', () => {
    assert.deepEqual(newCommissionFigures(3, 'ok', 'EUR', -2_000_000n), [
      { kind: 'partner', id: 3, metric: 'commission_not_paid:eur', value: -2_000_000n },
    ]);
    assert.deepEqual(newCommissionFigures(3, 'denied', 'EUR', 2_000_000n), []);
  });
});
