import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batchFigures, buyerChecks, firstBatch, type GuardedSale } from './sale-batches.ts';

const sale = (customerId: number, seen = 1, moves = false, name = `${customerId}`) => ({
  customerId,
  seen,
  moves,
  name,
});
const names = (sales: readonly { name: string }[]) => sales.map((s) => s.name);

test('firstBatch: which sales share one statement', () => {
  const cases: [string, ReturnType<typeof sale>[], number, string[], string[]][] = [
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
    ['nothing queued', [], 16, [], []],
  ];
  for (const [name, queue, max, batch, rest] of cases) {
    const taken = firstBatch(queue, max);
    assert.deepEqual(names(taken.batch), batch, name);
    assert.deepEqual(names(taken.rest), rest, name);
  }
});

test('buyerChecks: one check per buyer, in buyer order', () => {
  const batch: GuardedSale[] = [sale(9, 2), sale(3, 7), sale(9, 2), sale(5, 1, true)];
  assert.deepEqual(
    buyerChecks(batch).map((s) => [s.customerId, s.seen, s.moves]),
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
