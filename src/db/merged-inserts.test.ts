import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergedInserts } from './merged-inserts.ts';

const insertA = (a: unknown, b: unknown) => ({
  sql: 'insert into "events" ("id", "name") values ($1, $2)',
  parameters: [a, b],
});
const refs = (...values: string[]) => ({
  sql: `insert into "refs" ("ref") values ${values.map((_, i) => `($${i + 1})`).join(', ')} on conflict ("ref") do nothing`,
  parameters: values,
});
const update = { sql: 'update "totals" set "n" = "n" + $1 where "id" = $2', parameters: [1, 7] };

test('inserts of one form become one multi-row insert, renumbered, in the place of the first', () => {
  assert.deepEqual(mergedInserts([insertA(1, 'a'), update, refs('x', 'y'), insertA(2, 'b'), refs('z')]), [
    { sql: 'insert into "events" ("id", "name") values ($1, $2), ($3, $4)', parameters: [1, 'a', 2, 'b'] },
    update,
    {
      sql: 'insert into "refs" ("ref") values ($1), ($2), ($3) on conflict ("ref") do nothing',
      parameters: ['x', 'y', 'z'],
    },
  ]);
});

test('statements of other forms pass unchanged; a tail tells two forms apart', () => {
  const returning = { ...insertA(3, 'c'), sql: `${insertA(3, 'c').sql} returning "id"` };
  const literal = { sql: `insert into "events" ("id", "name") values ($1, 'fixed')`, parameters: [4] };
  assert.deepEqual(mergedInserts([insertA(1, 'a'), returning, literal]), [
    insertA(1, 'a'),
    returning,
    literal,
  ]);
  assert.deepEqual(mergedInserts([]), []);
});
