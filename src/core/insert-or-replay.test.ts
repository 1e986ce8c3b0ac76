import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { insertOrReplay } from './insert-or-replay.ts';

type Row = { key: string; digest: string };

/** A store of one key, and a request's digest; `raceWith` is a row another request stores first. */
function scenario(stored: Row | undefined, digest: string, raceWith?: Row, insertFirst = false) {
  let row = stored;
  const calls: string[] = [];
  const outcome = insertOrReplay<Row, Row>({
    find: async () => {
      calls.push('find');
      return row;
    },
    insert: async () => {
      calls.push('insert');
      if (row) return undefined;
      if (raceWith) {
        row = raceWith;
        return undefined;
      }
      row = { key: 'k', digest };
      return row;
    },
    sameRequest: (found) => found.digest === digest,
    taken: () => new Error('taken'),
    insertFirst,
  });
  return { outcome, calls };
}

describe('insertOrReplay', () => {
  test('a new key is inserted', async () => {
    const { outcome, calls } = scenario(undefined, 'a');
    assert.deepEqual(await outcome, { created: { key: 'k', digest: 'a' } });
    assert.deepEqual(calls, ['find', 'insert']);
  });
  test('the same request again is replayed without inserting', async () => {
    const { outcome, calls } = scenario({ key: 'k', digest: 'a' }, 'a');
    assert.deepEqual(await outcome, { replayed: { key: 'k', digest: 'a' } });
    assert.deepEqual(calls, ['find']);
  });
  test('another request under a stored key is taken', async () => {
    await assert.rejects(scenario({ key: 'k', digest: 'a' }, 'b').outcome, /taken/);
  });
  test('losing a race to the same request replays the winner', async () => {
    const { outcome, calls } = scenario(undefined, 'a', { key: 'k', digest: 'a' });
    assert.deepEqual(await outcome, { replayed: { key: 'k', digest: 'a' } });
    assert.deepEqual(calls, ['find', 'insert', 'find']);
  });
  test('losing a race to another request is taken', async () => {
    await assert.rejects(scenario(undefined, 'a', { key: 'k', digest: 'b' }).outcome, /taken/);
  });

  describe('inserting first', () => {
    test('a new key is inserted without a look-up', async () => {
      const { outcome, calls } = scenario(undefined, 'a', undefined, true);
      assert.deepEqual(await outcome, { created: { key: 'k', digest: 'a' } });
      assert.deepEqual(calls, ['insert']);
    });
    test('the same request again is replayed after the insert finds its key taken', async () => {
      const { outcome, calls } = scenario({ key: 'k', digest: 'a' }, 'a', undefined, true);
      assert.deepEqual(await outcome, { replayed: { key: 'k', digest: 'a' } });
      assert.deepEqual(calls, ['insert', 'find']);
    });
    test('another request under a stored key is taken', async () => {
      await assert.rejects(scenario({ key: 'k', digest: 'a' }, 'b', undefined, true).outcome, /taken/);
    });
    test('losing a race to another request is taken', async () => {
      await assert.rejects(scenario(undefined, 'a', { key: 'k', digest: 'b' }, true).outcome, /taken/);
    });
  });
});
