import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inBatches } from './in-batches.ts';

test('inBatches: steps until one finds fewer rows than asked, never past max', async () => {
  // A sweep over `rows` rows of which every `keep`-th is looked at but left as it is.
  const sweep = (rows: number, keep = 0) => {
    const limits: number[] = [];
    let left = rows;
    const step = async (limit: number) => {
      limits.push(limit);
      const examined = Math.min(limit, left);
      left -= examined;
      const kept = keep > 0 ? Math.floor(examined / keep) : 0;
      return { examined, changed: examined - kept };
    };
    return { limits, step };
  };
  const cases: [string, number, number, { batch: number; max: number }, number, number[]][] = [
    ['nothing to do', 0, 0, { batch: 10, max: 100 }, 0, [10]],
    ['fewer than a batch', 7, 0, { batch: 10, max: 100 }, 7, [10]],
    ['exactly a batch: one more step finds nothing', 10, 0, { batch: 10, max: 100 }, 10, [10, 10]],
    ['several batches', 25, 0, { batch: 10, max: 100 }, 25, [10, 10, 10]],
    ['stops at max, the last step asking only for what is left', 25, 0, { batch: 10, max: 15 }, 15, [10, 5]],
    ['rows looked at but kept do not count toward max', 20, 5, { batch: 10, max: 100 }, 16, [10, 10, 10]],
  ];
  for (const [name, rows, keep, options, changed, limits] of cases) {
    const { limits: asked, step } = sweep(rows, keep);
    assert.equal(await inBatches(step, options), changed, name);
    assert.deepEqual(asked, limits, name);
  }
});
