import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WriteCoalescer } from './write-coalescer.ts';

interface Item {
  name: string;
  failsAlone?: boolean;
  breaksBatch?: boolean;
}

/** A coalescer over a log of what was written how; batches of at most two. */
function logged() {
  const log: string[] = [];
  const coalescer = new WriteCoalescer<Item>({
    take: (queue) => ({ batch: queue.slice(0, 2), rest: queue.slice(2) }),
    together: async (key, batch) => {
      if (batch.some((item) => item.breaksBatch)) throw new Error('batch refused');
      log.push(`${key}:together:${batch.map((item) => item.name).join('+')}`);
    },
    alone: async (key, item) => {
      if (item.failsAlone) throw new Error(`${item.name} refused`);
      log.push(`${key}:alone:${item.name}`);
    },
  });
  return { log, coalescer };
}

test('writes of one turn go together per key, in batches the plan takes', async () => {
  const { log, coalescer } = logged();
  await Promise.all([
    coalescer.write(1, { name: 'a' }),
    coalescer.write(2, { name: 'x' }),
    coalescer.write(1, { name: 'b' }),
    coalescer.write(1, { name: 'c' }),
  ]);
  assert.deepEqual(log.sort(), ['1:alone:c', '1:together:a+b', '2:alone:x']);
});

test('writes of later turns go in later batches', async () => {
  const { log, coalescer } = logged();
  await coalescer.write(1, { name: 'a' });
  await coalescer.write(1, { name: 'b' });
  assert.deepEqual(log, ['1:alone:a', '1:alone:b']);
});

test('a refused batch: each write goes alone and answers its own outcome', async () => {
  const { log, coalescer } = logged();
  const outcomes = await Promise.allSettled([
    coalescer.write(1, { name: 'a', breaksBatch: true, failsAlone: true }),
    coalescer.write(1, { name: 'b' }),
  ]);
  assert.equal(outcomes[0]!.status, 'rejected');
  assert.equal((outcomes[0] as PromiseRejectedResult).reason.message, 'a refused');
  assert.equal(outcomes[1]!.status, 'fulfilled');
  assert.deepEqual(log, ['1:alone:b']);
});
