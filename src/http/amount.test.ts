import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { Amount } from './schemas.ts';
import { compileBodyValidator, fieldErrorsFromAjv } from './validation.ts';

const validate = compileBodyValidator(
  Type.Object({
    amount: Amount(),
    credit: Type.Optional(Type.Object({ amount: Amount({ sign: 'positive' }) })),
  }),
);

const errorsOf = (body: unknown) => (validate(body) ? {} : fieldErrorsFromAjv(validate.errors ?? []));

test('the Amount schema applies the money rule during validation, with one message per field', () => {
  const cases: [unknown, Record<string, string[]>][] = [
    [{ amount: 99.99 }, {}],
    [{ amount: '10.50' }, {}],
    [{ amount: '999999999999.999999' }, {}],
    [{ amount: 0 }, {}],
    [{ amount: 1e13 }, { amount: ['The amount field must be less than 1000000000000.'] }],
    [{ amount: 1e300 }, { amount: ['The amount field must be less than 1000000000000.'] }],
    [{ amount: 10.1234567 }, { amount: ['The amount field must not have more than 6 decimal places.'] }],
    [{ amount: 0.0000001 }, { amount: ['The amount field must not have more than 6 decimal places.'] }],
    [{ amount: 'abc' }, { amount: ['The amount field must be a number.'] }],
    [{ amount: true }, { amount: ['The amount field must be a number.'] }],
    [{ amount: { value: 1 } }, { amount: ['The amount field must be a number.'] }],
    [{ amount: -5 }, { amount: ['The amount field must be at least 0.'] }],
    [
      { amount: 1, credit: { amount: 0 } },
      { 'credit.amount': ['The credit.amount field must be greater than 0.'] },
    ],
    [{}, { amount: ['The amount field is required.'] }],
  ];
  for (const [body, expected] of cases) assert.deepEqual(errorsOf(body), expected, JSON.stringify(body));
});
