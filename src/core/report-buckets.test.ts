import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  bucketOf,
  bucketsOf,
  groupingPrefix,
  isCalendarDate,
  isTimeZone,
  localDayOfPrefix,
  localMidnightUtc,
} from './report-buckets.ts';

test('weeks start on Monday, across a year end', () => {
  const cases: [string, string][] = [
    ['2026-01-01', '2025-12-29'], // a Thursday
    ['2025-12-28', '2025-12-22'], // a Sunday
    ['2025-12-29', '2025-12-29'], // a Monday
    ['2027-01-03', '2026-12-28'],
  ];
  for (const [day, monday] of cases) assert.equal(bucketOf(day, 'week'), monday, day);
  assert.deepEqual(bucketsOf('2025-12-25', '2026-01-06', 'week'), ['2025-12-22', '2025-12-29', '2026-01-05']);
});

test('months of 28 to 31 days, a leap February included', () => {
  assert.deepEqual(bucketsOf('2024-01-31', '2024-05-01', 'month'), [
    '2024-01-01',
    '2024-02-01',
    '2024-03-01',
    '2024-04-01',
    '2024-05-01',
  ]);
  assert.equal(bucketOf('2024-02-29', 'month'), '2024-02-01');
  assert.equal(bucketsOf('2024-02-01', '2024-02-29', 'day').length, 29);
  assert.equal(bucketsOf('2025-02-01', '2025-02-28', 'day').length, 28);
  assert.deepEqual(bucketsOf('2025-12-01', '2026-01-01', 'month'), ['2025-12-01', '2026-01-01']);
});

test('dates and zones are checked', () => {
  for (const good of ['2024-02-29', '2026-12-31']) assert.ok(isCalendarDate(good), good);
  for (const bad of ['2025-02-29', '2026-13-01', '2026-1-01', 'today', '2026-01-01T00:00'])
    assert.ok(!isCalendarDate(bad), bad);
  for (const zone of ['UTC', 'Europe/Berlin', 'Asia/Kathmandu']) assert.ok(isTimeZone(zone), zone);
  for (const zone of ['', 'Mars/Olympus', 'Europe/Nowhere']) assert.ok(!isTimeZone(zone), zone);
});

test('local days across a DST change and in zones with part-hour offsets', () => {
  const berlin = localDayOfPrefix('Europe/Berlin');
  // Summer time from 29 March 2026 01:00 UTC: 22:30 UTC is 00:30 the next day from then on.
  assert.equal(berlin('2026-03-28T22'), '2026-03-28'); // 23:00 CET
  assert.equal(berlin('2026-03-28T23'), '2026-03-29'); // 00:00 CET
  assert.equal(berlin('2026-03-29T22'), '2026-03-30'); // 00:00 CEST
  assert.equal(groupingPrefix('UTC', '2026-01-01', '2026-12-31'), 10);
  assert.equal(groupingPrefix('Europe/Berlin', '2026-01-01', '2026-12-31'), 13);
  assert.equal(groupingPrefix('Asia/Kolkata', '2026-01-01', '2026-12-31'), 16);
  assert.equal(localDayOfPrefix('Asia/Kolkata')('2026-05-01T18:29'), '2026-05-01');
  assert.equal(localDayOfPrefix('Asia/Kolkata')('2026-05-01T18:30'), '2026-05-02');
  assert.equal(localMidnightUtc('Europe/Berlin', '2026-03-29'), '2026-03-28T23:00:00');
  assert.equal(localMidnightUtc('Europe/Berlin', '2026-03-30'), '2026-03-29T22:00:00');
  assert.equal(localMidnightUtc('America/New_York', '2026-11-01'), '2026-11-01T04:00:00');
  assert.equal(localMidnightUtc('America/New_York', '2026-11-02'), '2026-11-02T05:00:00');
});

test('daily and weekly buckets are every calendar day and every Monday, decades and leap days included', () => {
  // Stepped by Date over 1899-12-25 … 2101-01-10 (1900 and 2100 are not leap years, 2000 is).
  const expected = (first: string, last: string, step: number) => {
    const dates: string[] = [];
    for (
      let at = Date.parse(`${first}T00:00:00Z`);
      at <= Date.parse(`${last}T00:00:00Z`);
      at += step * 86_400_000
    )
      dates.push(new Date(at).toISOString().slice(0, 10));
    return dates;
  };
  assert.deepEqual(bucketsOf('1899-12-25', '2101-01-10', 'day'), expected('1899-12-25', '2101-01-10', 1));
  assert.deepEqual(bucketsOf('1899-12-27', '2101-01-10', 'week'), expected('1899-12-25', '2101-01-10', 7));
  assert.deepEqual(bucketsOf('0999-12-30', '1000-01-02', 'day'), [
    '0999-12-30',
    '0999-12-31',
    '1000-01-01',
    '1000-01-02',
  ]);
  assert.deepEqual(bucketsOf('2026-03-01', '2026-02-28', 'day'), []);
});
