import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { Numeric } from './schemas.ts';
import { compileBodyValidator, fieldErrorsFromAjv } from './validation.ts';

const schema = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 255 }),
    amount: Numeric(),
    cookie_lifetime: Type.Optional(Type.Integer({ minimum: 1, maximum: 9_999_999 })),
    transactions: Type.Optional(Type.Array(Type.Object({ amount: Numeric() }))),
    website: Type.Optional(Type.String({ format: 'http-url' })),
    type: Type.Optional(Type.Union([Type.Literal('percent'), Type.Literal('fixed')])),
    flag: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const validate = compileBodyValidator(schema);

function errorsOf(body: unknown) {
  assert.equal(validate(body), false);
  return fieldErrorsFromAjv(validate.errors ?? []);
}

const cases: [string, unknown, Record<string, string[]>][] = [
  [
    'missing fields',
    {},
    { email: ['The email field is required.'], amount: ['The amount field is required.'] },
  ],
  [
    'wrong shapes',
    { email: 'nope', amount: 'ten', flag: 'yes', type: 'both', website: 'ftp//x' },
    {
      email: ['The email field must be a valid email address.'],
      amount: ['The amount field must be a number.'],
      flag: ['The flag field must be true or false.'],
      type: ['The selected type is invalid.'],
      website: ['The website field must be a valid URL.'],
    },
  ],
  [
    'nested paths are dotted',
    { email: 'a@b.co', amount: 1, transactions: [{ amount: 2 }, { amount: 'x' }], cookie_lifetime: 0 },
    {
      'transactions.1.amount': ['The transactions.1.amount field must be a number.'],
      cookie_lifetime: ['The cookie lifetime field must be between 1 and 9999999.'],
    },
  ],
  [
    'unknown keys are prohibited where closed',
    { email: 'a@b.co', amount: '1.5', extra: 1 },
    { extra: ['The extra field is prohibited.'] },
  ],
];
for (const [name, body, expected] of cases) {
  test(`Laravel messages: ${name}`, () => assert.deepEqual(errorsOf(body), expected));
}

test('numeric strings are numbers to Numeric()', () => {
  assert.equal(validate({ email: 'a@b.co', amount: '99.99' }), true);
  assert.equal(validate({ email: 'a@b.co', amount: 99.99 }), true);
});

test('a conditional rule reports the field it is about, once', () => {
  const conditional = compileBodyValidator(
    Type.Object(
      { is_currency: Type.Boolean(), amount_units: Type.String() },
      {
        if: { properties: { is_currency: { const: true } } },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable.
        then: { properties: { amount_units: { format: 'iso4217' } } },
      },
    ),
  );
  assert.equal(conditional({ is_currency: true, amount_units: 'points' }), false);
  assert.deepEqual(fieldErrorsFromAjv(conditional.errors ?? []), {
    amount_units: ['The selected amount units is invalid.'],
  });
});
