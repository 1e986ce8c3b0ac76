import assert from 'node:assert/strict';
import { test } from 'node:test';
import { itemAt } from '../../test/items.ts';
import { Coalescer } from './coalescer.ts';

interface Item {
  name: string;
  failsAlone?: boolean;
  breaksBatch?: boolean;
}

/** A coalescer over a log of what was written how; batches of at most two. */
function logged() {
  const log: string[] = [];
  const coalescer = new Coalescer<Item, string>({
    take: (queue) => ({ batch: queue.slice(0, 2), rest: queue.slice(2) }),
    together: async (key, batch) => {
      if (batch.some((item) => item.breaksBatch)) throw new Error('batch refused');
      log.push(`${key}:together:${batch.map((item) => item.name).join('+')}`);
      return batch.map((item) => `${item.name} together`);
    },
    alone: async (key, item) => {
      if (item.failsAlone) throw new Error(`${item.name} refused`);
      log.push(`${key}:alone:${item.name}`);
      return `${item.name} alone`;
    },
  });
  return { log, coalescer };
}

test('requests of one turn go together per key, in batches the plan takes; each gets its answer', async () => {
  const { log, coalescer } = logged();
  const answers = await Promise.all([
    coalescer.run(1, { name: 'a' }),
    coalescer.run(2, { name: 'x' }),
    coalescer.run(1, { name: 'b' }),
    coalescer.run(1, { name: 'c' }),
  ]);
  assert.deepEqual(log.sort(), ['1:alone:c', '1:together:a+b', '2:alone:x']);
  assert.deepEqual(answers, ['a together', 'x alone', 'b together', 'c alone']);
});

test('requests of later turns go in later batches', async () => {
  const { log, coalescer } = logged();
  await coalescer.run(1, { name: 'a' });
  await coalescer.run(1, { name: 'b' });
  assert.deepEqual(log, ['1:alone:a', '1:alone:b']);
});

test('a refused batch: each request goes alone and answers its own outcome', async () => {
  const { log, coalescer } = logged();
  const outcomes = await Promise.allSettled([
    coalescer.run(1, { name: 'a', breaksBatch: true, failsAlone: true }),
    coalescer.run(1, { name: 'b' }),
  ]);
  assert.equal(itemAt(outcomes).status, 'rejected');
  assert.equal((outcomes[0] as PromiseRejectedResult).reason.message, 'a refused');
  assert.deepEqual(outcomes[1], { status: 'fulfilled', value: 'b alone' });
  assert.deepEqual(log, ['1:alone:b']);
});

test('a plan that cannot split its queue fails the requests left instead of leaving them waiting', async () => {
  const coalescer = new Coalescer<Item, string>({
    take: () => ({ batch: [], rest: [] }),
    together: async () => [],
    alone: async (_key, item) => item.name,
  });
  await assert.rejects(coalescer.run(1, { name: 'a' }), /take\(\) left its whole queue/);
});
