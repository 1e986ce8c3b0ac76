import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AppError } from '../core/errors.ts';
import { renderFieldErrors } from '../core/messages.ts';
import { errorBody } from './errors.ts';
import {
  assertAcceptableInput,
  MAX_ARRAY_ITEMS,
  MAX_JSON_DEPTH,
  oversizedArrayPath,
  screenJsonText,
} from './input-limits.ts';

const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const items = (n: number) => `[${Array(n).fill(1).join(',')}]`;

test('screenJsonText reads depth, NUL escapes and long arrays from the text alone', () => {
  const cases: [string, string, ReturnType<typeof screenJsonText>][] = [
    ['flat object', '{"a":1,"b":[1,2]}', 'clean'],
    ['at the depth bound', nested(MAX_JSON_DEPTH), 'clean'],
    ['one past the bound', nested(MAX_JSON_DEPTH + 1), 'too-deep'],
    ['brackets inside a string', `{"a":"${'['.repeat(100)}"}`, 'clean'],
    ['an escaped quote keeps the string open', `{"a":"\\"${'['.repeat(100)}"}`, 'clean'],
    ['a NUL escape', '{"a":"x\\u0000"}', 'inspect'],
    ['an escaped backslash before u0000 is text', '{"a":"\\\\u0000"}', 'clean'],
    ['an array at the item bound', items(MAX_ARRAY_ITEMS), 'clean'],
    ['an array past the item bound', items(MAX_ARRAY_ITEMS + 1), 'too-many'],
    [
      'many keys are not items',
      `{${Array.from({ length: 2000 }, (_, i) => `"k${i}":1`).join(',')}}`,
      'clean',
    ],
    ['a long array nested in an object', `{"a":{"b":${items(MAX_ARRAY_ITEMS + 1)}}}`, 'too-many'],
  ];
  for (const [what, text, expected] of cases) assert.equal(screenJsonText(text), expected, what);
});

test('oversizedArrayPath names the long array by its keys and indexes', () => {
  const cases: [string, string][] = [
    [items(MAX_ARRAY_ITEMS + 1), 'body'],
    [`{"a":1,"list":${items(MAX_ARRAY_ITEMS + 1)}}`, 'list'],
    [`{"a":{"b,":[1]},"c":[{"x":1},{"d\\"e":${items(MAX_ARRAY_ITEMS + 1)}}]}`, 'c.1.d"e'],
    [`{"k":"[,,,]","t":[0,${items(MAX_ARRAY_ITEMS + 1)}]}`, 't.1'],
  ];
  for (const [text, expected] of cases) assert.equal(oversizedArrayPath(text), expected, text.slice(0, 40));
});

const worded = (error: AppError | undefined) => renderFieldErrors(error?.problems ?? []);

function refusal(value: unknown, schema?: Record<string, unknown>): AppError | undefined {
  try {
    assertAcceptableInput(value, schema);
    return undefined;
  } catch (error) {
    return error as AppError;
  }
}

test('assertAcceptableInput names the field of a NUL or an oversized array, and bounds its list', () => {
  assert.equal(refusal({ a: 'x', b: [1, 2], c: { d: 'y' } }), undefined);
  assert.deepEqual(worded(refusal({ c: { d: 'y\u0000' } })), {
    'c.d': ['The c.d field must not contain a NUL character.'],
  });
  assert.deepEqual(worded(refusal({ m: { 'k\u0000': 1 } })), {
    m: ['The m field must not contain a NUL character.'],
  });
  const schema = { properties: { list: { type: 'array', maxItems: 100 } } };
  assert.deepEqual(worded(refusal({ list: Array(MAX_ARRAY_ITEMS + 1).fill(1) }, schema)), {
    list: ['The list field must not have more than 100 items.'],
  });
  assert.deepEqual(worded(refusal({ other: Array(MAX_ARRAY_ITEMS + 1).fill(1) }, schema)), {
    other: [`The other field must not have more than ${MAX_ARRAY_ITEMS} items.`],
  });
  const many = refusal(Array.from({ length: 80 }, () => '\u0000'));
  assert.equal(many?.problems.length, 50);
  assert.equal(
    many && errorBody(many).message,
    'The 0 field must not contain a NUL character. (and 79 more errors)',
  );
});
