import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batchChecks, batchFigures, firstBatch, type VersionCheck } from './guarded-batches.ts';

type Write = { name: string; check?: VersionCheck };
const sale = (customerId: number, seen = 1, moves = false, name = `${customerId}`): Write => ({
  name,
  check: { customerId, seen, moves },
});
const unchecked = (name: string): Write => ({ name });
const checkOf = (write: Write) => write.check;
const names = (sales: readonly { name: string }[]) => sales.map((s) => s.name);

test('firstBatch: which sales share one statement', () => {
  const cases: [string, Write[], number, string[], string[]][] = [
    ['other buyers all join', [sale(1), sale(2), sale(3)], 16, ['1', '2', '3'], []],
    ['at most max, in arrival order', [sale(1), sale(2), sale(3)], 2, ['1', '2'], ['3']],
    [
      'one buyer, neither moving its version, same version read: together',
      [sale(1, 4, false, 'a'), sale(1, 4, false, 'b')],
      16,
      ['a', 'b'],
      [],
    ],
    [
      'one buyer, versions read differ: the later waits',
      [sale(1, 4, false, 'a'), sale(1, 5, false, 'b')],
      16,
      ['a'],
      ['b'],
    ],
    [
      'a first sale moves the version: a second sale of its buyer waits',
      [sale(1, 4, true, 'a'), sale(1, 4, false, 'b'), sale(2, 1, true, 'c')],
      16,
      ['a', 'c'],
      ['b'],
    ],
    [
      'a moving sale after a plain one of its buyer waits',
      [sale(1, 4, false, 'a'), sale(1, 4, true, 'b')],
      16,
      ['a'],
      ['b'],
    ],
    [
      'writes without a check always join while there is room',
      [sale(1, 4, true, 'a'), unchecked('u'), unchecked('v'), sale(1, 4, true, 'b')],
      3,
      ['a', 'u', 'v'],
      ['b'],
    ],
    ['nothing queued', [], 16, [], []],
  ];
  for (const [name, queue, max, batch, rest] of cases) {
    const taken = firstBatch(queue, max, checkOf);
    assert.deepEqual(names(taken.batch), batch, name);
    assert.deepEqual(names(taken.rest), rest, name);
  }
});

test('batchChecks: one check per customer, in customer order', () => {
  const batch = [sale(9, 2), unchecked('u'), sale(3, 7), sale(9, 2), sale(5, 1, true)];
  assert.deepEqual(
    batchChecks(batch, checkOf).map((s) => [s.customerId, s.seen, s.moves]),
    [
      [3, 7, false],
      [5, 1, true],
      [9, 2, false],
    ],
  );
});

test('batchFigures: program figures summed per day, entity figures all kept', () => {
  const figures = (sales: bigint, revenue: bigint, partner: number) => ({
    program: { sales, 'revenue:usd': revenue },
    entities: [{ kind: 'partner' as const, id: partner, metric: 'sales_count', value: 1n }],
  });
  const combined = batchFigures([
    { at: '2026-11-27T23:59:59.999999Z', figures: figures(1n, 10_000_000n, 1) },
    { at: '2026-11-28T00:00:00.000001Z', figures: figures(1n, 5n, 2) },
    { at: '2026-11-27T08:00:00.000000Z', figures: figures(1n, 999_999_999_999_999n, 1) },
  ]);
  assert.deepEqual(combined.program, [
    { at: '2026-11-27T23:59:59.999999Z', figures: { sales: 2n, 'revenue:usd': 1_000_000_009_999_999n } },
    { at: '2026-11-28T00:00:00.000001Z', figures: { sales: 1n, 'revenue:usd': 5n } },
  ]);
  assert.deepEqual(
    combined.entities.map((e) => e.id),
    [1, 2, 1],
  );
  assert.deepEqual(batchFigures([]), { program: [], entities: [] });
});
