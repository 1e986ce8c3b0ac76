import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  closeWindow,
  countsAsReferral,
  firstNameOf,
  milestonesToUnlock,
  nextMilestone,
  noWindow,
  openingWindow,
  referralCountDelta,
  windowedReferralChange,
} from './milestones.ts';

const m = (id: number, subscriberCount: number) => ({ id, subscriberCount });

test('a referred subscriber counts only while active and approved', () => {
  const cases: [string, boolean, boolean][] = [
    ['active', true, true],
    ['active', false, false],
    ['rejected', true, false],
    ['suspended', true, false],
  ];
  for (const [status, approved, counts] of cases)
    assert.equal(countsAsReferral({ status, approved }), counts, `${status}/${approved}`);
});

test('referralCountDelta moves the referrer by the change of counting', () => {
  const active = { status: 'active', approved: true };
  const rejected = { status: 'rejected', approved: true };
  const unapproved = { status: 'active', approved: false };
  const cases: [typeof active | undefined, typeof active | undefined, number][] = [
    [undefined, active, 1],
    [undefined, rejected, 0],
    [active, undefined, -1],
    [rejected, undefined, 0],
    [active, rejected, -1],
    [rejected, active, 1],
    [active, unapproved, -1],
    [unapproved, active, 1],
    [active, active, 0],
    [rejected, { status: 'suspended', approved: true }, 0],
  ];
  for (const [before, after, delta] of cases)
    assert.equal(
      referralCountDelta(before, after),
      delta,
      `${JSON.stringify(before)} → ${JSON.stringify(after)}`,
    );
});

test('milestonesToUnlock: reached and not yet unlocked, lowest first', () => {
  const all = [m(3, 10), m(1, 1), m(2, 5), m(4, 5)];
  const cases: [number, number[], number[]][] = [
    [0, [], []],
    [1, [], [1]],
    [4, [], [1]],
    [5, [], [1, 2, 4]],
    [5, [1], [2, 4]],
    [5, [1, 2, 4], []],
    [10, [2], [1, 4, 3]],
    [100, [1, 2, 3, 4], []],
  ];
  for (const [count, unlocked, expected] of cases)
    assert.deepEqual(
      milestonesToUnlock(count, all, new Set(unlocked)).map((x) => x.id),
      expected,
      `count ${count}, unlocked ${unlocked}`,
    );
});

test('nextMilestone is the lowest threshold above the count', () => {
  const all = [m(3, 10), m(1, 1), m(2, 5)];
  assert.equal(nextMilestone(0, all)?.id, 1);
  assert.equal(nextMilestone(1, all)?.id, 2);
  assert.equal(nextMilestone(9, all)?.id, 3);
  assert.equal(nextMilestone(10, all), undefined);
  assert.equal(nextMilestone(0, []), undefined);
});

test('firstNameOf shows a first name, never a whole e-mail', () => {
  assert.equal(firstNameOf('Ada Lovelace', 'ada@example.com'), 'Ada');
  assert.equal(firstNameOf('  Grace  ', 'g@example.com'), 'Grace');
  assert.equal(firstNameOf(null, 'zoe@example.com'), 'Z.');
  assert.equal(firstNameOf('', 'zoe@example.com'), 'Z.');
});

test('referral_pending_days: pending counts for no one, an unsubscribe inside the window never counts', () => {
  const active = { status: 'active', approved: true };
  const gone = { status: 'suspended', approved: true };
  const now = Date.parse('2026-01-01T00:00:00Z') * 1000;
  assert.deepEqual(openingWindow(0, now), noWindow);
  const window = openingWindow(7, now);
  assert.equal(window.pendingUntil, '2026-01-08T00:00:00.000000Z');
  const inside = '2026-01-03T00:00:00.000000Z';
  const after = '2026-01-09T00:00:00.000000Z';
  const cases: [
    string,
    ReturnType<typeof windowedReferralChange>,
    ReturnType<typeof windowedReferralChange>,
  ][] = [
    [
      'a rename inside the window',
      windowedReferralChange(window, active, active, inside),
      { delta: 0, window },
    ],
    [
      'an unsubscribe inside the window lapses',
      windowedReferralChange(window, active, gone, inside),
      { delta: 0, window: { pendingUntil: null, lapsedAt: inside } },
    ],
    [
      'a lapsed one never counts again',
      windowedReferralChange({ pendingUntil: null, lapsedAt: inside }, gone, active, after),
      { delta: 0, window: { pendingUntil: null, lapsedAt: inside } },
    ],
    [
      'an ended window closes with the change',
      windowedReferralChange(window, active, active, after),
      { delta: 1, window: noWindow },
    ],
    [
      'an unsubscribe after the window',
      windowedReferralChange(window, active, gone, after),
      { delta: 0, window: noWindow },
    ],
    [
      'no window: as before',
      windowedReferralChange(noWindow, active, gone, inside),
      { delta: -1, window: noWindow },
    ],
    [
      'deleted inside the window',
      windowedReferralChange(window, active, undefined, inside),
      { delta: 0, window: { pendingUntil: null, lapsedAt: inside } },
    ],
  ];
  for (const [name, actual, expected] of cases) assert.deepEqual(actual, expected, name);
  assert.equal(closeWindow(active), 1);
  assert.equal(closeWindow(gone), 0);
});
