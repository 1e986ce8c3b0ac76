import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../../../test/harness.ts';
import { COUNTER_BASE, joinCounterParts, splitCounterDelta } from '../../db/counter-parts.ts';
import {
  addCounterDelta,
  addToEntityCounters,
  readEntityCounters,
  subtractIfAvailable,
} from './counters.repository.ts';

test('a delta splits into a low part in [0, 10^12) and a high part', () => {
  const cases: [bigint | number, [number, number]][] = [
    [0, [0, 0]],
    [1, [1, 0]],
    [-1, [COUNTER_BASE - 1, -1]],
    [COUNTER_BASE, [0, 1]],
    [-COUNTER_BASE, [0, -1]],
    [999_999_999_999_999_999n, [999_999_999_999, 999_999]],
    [-999_999_999_999_999_999n, [1, -1_000_000]],
    [10n ** 21n, [0, 1_000_000_000]],
  ];
  for (const [delta, parts] of cases) {
    assert.deepEqual(splitCounterDelta(delta), parts, String(delta));
    assert.equal(joinCounterParts(...parts), BigInt(delta), String(delta));
  }
});

describeEachDatabase('entity counters', (server) => {
  test('figures add up exactly past int64, with negative deltas, and stay normalized', async () => {
    const p = await server().newProgram('affiliate');
    const db = server().deps.database.db;
    const owner = { kind: 'partner', id: 1 } as const;
    // A fixed pseudo-random walk: large sales, small refunds, counts.
    let expected = 0n;
    let seed = 12345n;
    for (let i = 0; i < 60; i++) {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
      const magnitude = seed % 999_999_999_999_999_999n;
      const delta = i % 4 === 3 ? -(magnitude / 7n) : magnitude;
      expected += delta;
      await addToEntityCounters(db, p.id, owner, { 'revenue:usd': delta, sales_count: 1 });
    }
    assert.ok(expected > 2n ** 63n, 'the walk passes int64');
    const figures = await readEntityCounters(db, p.id, owner);
    assert.equal(figures.micros('revenue:usd'), expected);
    assert.equal(figures.count('sales_count'), 60);
    assert.equal(await addCounterDelta(db, p.id, { ...owner, metric: 'revenue:usd', value: -expected }), 0n);
    const rows = await db
      .selectFrom('entity_counters')
      .select(['metric', 'value', 'value_hi'])
      .where('program_id', '=', p.id)
      .execute();
    for (const row of rows) {
      assert.ok(Number(row.value) >= 0 && Number(row.value) < COUNTER_BASE, `${row.metric}: ${row.value}`);
    }
  });

  test('subtract-if-available compares exactly, one micro-unit either side', async () => {
    const p = await server().newProgram('referral');
    const db = server().deps.database.db;
    const owner = { kind: 'customer', id: 7 } as const;
    const balance = 9_999_999_999_999_999_990n; // past int64
    await addToEntityCounters(db, p.id, owner, { 'balance:usd': balance });
    assert.equal(await subtractIfAvailable(db, p.id, owner, 'balance:usd', balance + 1n), false);
    assert.equal(await subtractIfAvailable(db, p.id, owner, 'balance:usd', 999_999_999_999_999_999n), true);
    const left = balance - 999_999_999_999_999_999n;
    assert.equal((await readEntityCounters(db, p.id, owner)).micros('balance:usd'), left);
    assert.equal(await subtractIfAvailable(db, p.id, owner, 'balance:usd', left + 1n), false);
    assert.equal(await subtractIfAvailable(db, p.id, owner, 'balance:usd', left), true);
    assert.equal((await readEntityCounters(db, p.id, owner)).micros('balance:usd'), 0n);
    assert.equal(await subtractIfAvailable(db, p.id, owner, 'balance:usd', 1n), false);
  });
});
