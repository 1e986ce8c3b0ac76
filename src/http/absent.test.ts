import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { stripAbsent } from './absent.ts';

const schema = Type.Object({
  id: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  tier2: Type.Optional(Type.Union([Type.Object({ value: Type.Number() }), Type.Null()])),
  nested: Type.Optional(
    Type.Object({ key: Type.Optional(Type.String()), email: Type.Optional(Type.String()) }),
  ),
  list: Type.Optional(Type.Array(Type.Object({ a: Type.Optional(Type.String()) }))),
});

test('null and "" mean "not given" unless the field accepts null', () => {
  const body = {
    id: null,
    name: '',
    tier2: null,
    nested: { key: 'k', email: '' },
    list: [{ a: '' }],
    kept: 0,
  };
  assert.deepEqual(stripAbsent(body, schema as never), {
    tier2: null,
    nested: { key: 'k' },
    list: [{}],
    kept: 0,
  });
  assert.deepEqual(stripAbsent({ tier2: '' }, schema as never), { tier2: null });
  assert.deepEqual(stripAbsent({ flag: false, zero: 0 }, schema as never), { flag: false, zero: 0 });
});
