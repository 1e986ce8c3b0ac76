import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError, type FieldProblem, fieldError, problem, underPath, validationError } from './errors.ts';
import { messages, type Rule, renderFieldErrors, renderProblem, summarizeFieldErrors } from './messages.ts';

describe('renderProblem: each rule in Laravel wording', () => {
  const table: [FieldProblem, string][] = [
    [problem('email', 'required'), 'The email field is required.'],
    [problem('name', 'string'), 'The name field must be a string.'],
    [problem('limit', 'integer'), 'The limit field must be an integer.'],
    [problem('amount', 'numeric'), 'The amount field must be a number.'],
    [problem('active', 'boolean'), 'The active field must be true or false.'],
    [problem('ids', 'array'), 'The ids field must be an array.'],
    [problem('email', 'email'), 'The email field must be a valid email address.'],
    [problem('url', 'url'), 'The url field must be a valid URL.'],
    [problem('from', 'date'), 'The from field must match the format Y-m-d.'],
    [problem('key', 'format'), 'The key field format is invalid.'],
    [problem('partner', 'prohibited'), 'The partner field is prohibited.'],
    [problem('password', 'minLength', 8), 'The password field must be at least 8 characters.'],
    [problem('name', 'maxLength', 255), 'The name field must not be greater than 255 characters.'],
    [problem('amount', 'min', 0), 'The amount field must be at least 0.'],
    [problem('commission', 'max', 100), 'The commission field must not be greater than 100.'],
    [problem('amount', 'gt', 0), 'The amount field must be greater than 0.'],
    [problem('amount', 'lessThan', 1_000_000_000_000), 'The amount field must be less than 1000000000000.'],
    [problem('amount', 'decimals', 6), 'The amount field must not have more than 6 decimal places.'],
    [problem('limit', 'between', 10, 100), 'The limit field must be between 10 and 100.'],
    [problem('ids', 'minItems', 2), 'The ids field must have at least 2 items.'],
    [problem('ids', 'maxItems', 100), 'The ids field must not have more than 100 items.'],
    [problem('ids.3', 'distinct'), 'The ids.3 field has a duplicate value.'],
    [
      problem('redemption_times_value', 'requiredWhen', 'redemption_times_status', 'on'),
      'The redemption times value field is required when redemption times status is on.',
    ],
    [
      problem('coupon_duration_value', 'prohibitedWhen', 'coupon_duration_type', 'once'),
      'The coupon duration value field is prohibited when coupon duration type is once.',
    ],
    [
      problem('password', 'mixedCase'),
      'The password field must contain at least one uppercase and one lowercase letter.',
    ],
    [problem('password', 'digit'), 'The password field must contain at least one number.'],
    [problem('name', 'nulCharacter'), 'The name field must not contain a NUL character.'],
    [problem('created_at', 'notFuture'), 'The created at field must be a date before or equal to now.'],
    [problem('promotion_code', 'invalid'), 'The selected promotion code is invalid.'],
    [problem('partner', 'archived'), 'The selected partner is archived.'],
    [problem('key', 'taken'), 'The key has already been taken.'],
    [
      problem('url', 'privateAddress', '10.0.0.1'),
      'The url field must not point to a private or reserved address (10.0.0.1).',
    ],
    [
      problem('amount', 'overRefundable', '12.5'),
      'The amount must not be greater than 12.5 (what is left to refund).',
    ],
    [problem('amount', 'overBalance', 3, 'USD'), 'The amount must not be greater than the balance (3 USD).'],
    [
      problem('program_settings.terms_url', 'https'),
      'The program settings.terms url field must be an https URL.',
    ],
    [
      problem('program_settings.brand_color', 'contrast', '1.53', '4.5'),
      'The program settings.brand color field must have a contrast of at least 4.5:1 with white text (this colour has 1.53:1).',
    ],
    [
      problem('ids.0', 'commissionMove', 7, 'in a payout', 'denied'),
      'The commission 7 is in a payout and cannot be denied.',
    ],
    [
      problem('id', 'refused', 'The lead has already been converted.'),
      'The lead has already been converted.',
    ],
  ];
  for (const [given, wording] of table) test(given.rule, () => assert.equal(renderProblem(given), wording));

  test('the table covers every rule', () => {
    const covered = new Set<Rule>(table.map(([given]) => given.rule));
    assert.deepEqual(
      Object.keys(messages).filter((rule) => !covered.has(rule as Rule)),
      [],
    );
  });
});

describe('field paths', () => {
  test('nested paths are named whole, underscores read as spaces', () => {
    assert.equal(
      renderProblem(problem('transactions.2.amount', 'required')),
      'The transactions.2.amount field is required.',
    );
    assert.equal(
      renderProblem(problem('program_settings.cookie_lifetime', 'max', 365)),
      'The program settings.cookie lifetime field must not be greater than 365.',
    );
    assert.equal(
      renderProblem(problem('coupon_specific_partners.0.id', 'invalid')),
      'The selected coupon specific partners.0.id is invalid.',
    );
  });

  test('moving a 422 under a path renames its fields, keeps the shared ones and the total', () => {
    const error = validationError(
      [problem('promotion_code', 'invalid'), problem('customer.email', 'taken'), problem('amount', 'gt', 0)],
      5,
    );
    const moved = underPath(error, 'transactions.2.', (field) => field.startsWith('customer'));
    assert.ok(moved instanceof AppError);
    assert.deepEqual(renderFieldErrors(moved.problems), {
      'transactions.2.promotion_code': ['The selected transactions.2.promotion code is invalid.'],
      'customer.email': ['The customer.email has already been taken.'],
      'transactions.2.amount': ['The transactions.2.amount field must be greater than 0.'],
    });
    assert.equal(moved.total, 5);
    const other = new AppError('not_found', 'Customer not found.');
    assert.equal(underPath(other, 'transactions.0.'), other);
  });

  test('messages of one field are listed together, in the order found', () => {
    const error = validationError([
      problem('password', 'minLength', 8),
      problem('email', 'taken'),
      problem('password', 'digit'),
    ]);
    assert.deepEqual(renderFieldErrors(error.problems), {
      password: [
        'The password field must be at least 8 characters.',
        'The password field must contain at least one number.',
      ],
      email: ['The email has already been taken.'],
    });
    assert.equal(error.problemOn('email')?.rule, 'taken');
    assert.equal(error.problemOn('name'), undefined);
  });
});

test('the summary is the first message and how many more', () => {
  assert.equal(summarizeFieldErrors({}), 'The given data was invalid.');
  assert.equal(
    summarizeFieldErrors(renderFieldErrors(fieldError('key', 'taken').problems)),
    'The key has already been taken.',
  );
  const two = renderFieldErrors([problem('a', 'required'), problem('b', 'required')]);
  assert.equal(summarizeFieldErrors(two), 'The a field is required. (and 1 more error)');
  assert.equal(summarizeFieldErrors(two, 80), 'The a field is required. (and 79 more errors)');
});
