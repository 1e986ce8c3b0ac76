import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PageStarts } from './page-starts.ts';

function starts(options: Partial<{ lists: number; perList: number; reach: number }> = {}) {
  const clock = { now: 0 };
  const pageStarts = new PageStarts<string>({
    ttlMs: 1000,
    lists: options.lists ?? 10,
    perList: options.perList ?? 4,
    reach: options.reach ?? 100,
    now: () => clock.now,
  });
  return { pageStarts, clock };
}

test('a remembered start is found at its offset, or as the nearest one before within reach', () => {
  const { pageStarts } = starts();
  pageStarts.remember('a', 1000, 'k1000');
  pageStarts.remember('a', 1050, 'k1050');
  const cases: [offset: number, found: { offset: number; key: string } | undefined][] = [
    [1000, { offset: 1000, key: 'k1000' }],
    [1049, { offset: 1000, key: 'k1000' }],
    [1050, { offset: 1050, key: 'k1050' }],
    [1150, { offset: 1050, key: 'k1050' }],
    [1151, undefined], // beyond reach
    [999, undefined], // starts are never used backwards
  ];
  for (const [offset, found] of cases)
    assert.deepEqual(pageStarts.find('a', offset), found, `offset ${offset}`);
  assert.equal(pageStarts.find('b', 1000), undefined, 'lists are apart');
});

test('a start is forgotten after its lifetime; a newer one at the same offset replaces it', () => {
  const { pageStarts, clock } = starts();
  pageStarts.remember('a', 1000, 'old');
  clock.now = 999;
  assert.deepEqual(pageStarts.find('a', 1000), { offset: 1000, key: 'old' });
  pageStarts.remember('a', 1000, 'new');
  clock.now = 1000;
  assert.deepEqual(pageStarts.find('a', 1010), { offset: 1000, key: 'new' });
  clock.now = 1999;
  assert.equal(pageStarts.find('a', 1000), undefined);
});

test('each list keeps its latest starts, and the lists start over past their number', () => {
  const { pageStarts } = starts({ perList: 2, lists: 2 });
  pageStarts.remember('a', 1000, 'k1');
  pageStarts.remember('a', 2000, 'k2');
  pageStarts.remember('a', 3000, 'k3');
  assert.equal(pageStarts.find('a', 1000), undefined, 'the oldest start made room');
  assert.deepEqual(pageStarts.find('a', 2000), { offset: 2000, key: 'k2' });
  pageStarts.remember('b', 1000, 'b1');
  pageStarts.remember('c', 1000, 'c1');
  assert.equal(pageStarts.find('a', 3000), undefined, 'a third list started over');
  assert.deepEqual(pageStarts.find('c', 1000), { offset: 1000, key: 'c1' });
});
