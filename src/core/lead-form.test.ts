import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countryCodes, isCountryCode } from './countries.ts';
import {
  assignFieldIds,
  checkLeadAnswers,
  type LeadFormField,
  type LeadStatus,
  leadFlags,
  refusedLeadMove,
  submissionForm,
} from './lead-form.ts';
import { renderFieldErrors } from './messages.ts';

const field = (
  id: number,
  type: LeadFormField['type'],
  extra: Partial<LeadFormField> = {},
): LeadFormField => ({
  id,
  type,
  title: `Q${id}`,
  text: '',
  description: null,
  required: false,
  options: [],
  ...extra,
});

const form: LeadFormField[] = [
  field(1, 'input', { required: true }),
  field(2, 'select', { options: ['a', 'b'] }),
  field(3, 'checkbox', { options: ['x', 'y', 'z'] }),
  field(4, 'radio', { options: ['r1', 'r2'] }),
  field(5, 'countries'),
  field(6, 'textarea'),
  field(7, 'text'),
];

describe('checkLeadAnswers', () => {
  const cases: [string, Record<string, string | string[]> | undefined, Record<string, string[]>][] = [
    ['required field missing', undefined, { 'cfields.1': ['The cfields.1 field is required.'] }],
    ['required field blank', { 1: '  ' }, { 'cfields.1': ['The cfields.1 field is required.'] }],
    ['all valid', { 1: 'ok', 2: 'b', 3: ['x', 'z'], 4: 'r2', 5: 'fr', 6: 'long', 7: 'short' }, {}],
    ['select outside options', { 1: 'ok', 2: 'c' }, { 'cfields.2': ['The selected cfields.2 is invalid.'] }],
    [
      'select given an array',
      { 1: 'ok', 2: ['a'] },
      { 'cfields.2': ['The cfields.2 field must be a string.'] },
    ],
    ['checkbox as a string', { 1: 'ok', 3: 'x' }, { 'cfields.3': ['The cfields.3 field must be an array.'] }],
    [
      'checkbox outside options',
      { 1: 'ok', 3: ['x', 'q'] },
      { 'cfields.3': ['The selected cfields.3 is invalid.'] },
    ],
    [
      'checkbox repeated',
      { 1: 'ok', 3: ['x', 'x'] },
      { 'cfields.3': ['The cfields.3 field has a duplicate value.'] },
    ],
    ['radio outside options', { 1: 'ok', 4: 'r3' }, { 'cfields.4': ['The selected cfields.4 is invalid.'] }],
    ['unknown country', { 1: 'ok', 5: 'ZZ' }, { 'cfields.5': ['The selected cfields.5 is invalid.'] }],
    ['alpha-3 country', { 1: 'ok', 5: 'FRA' }, { 'cfields.5': ['The selected cfields.5 is invalid.'] }],
    ['reserved code EU', { 1: 'ok', 5: 'EU' }, { 'cfields.5': ['The selected cfields.5 is invalid.'] }],
    [
      'input too long',
      { 1: 'x'.repeat(256) },
      { 'cfields.1': ['The cfields.1 field must not be greater than 255 characters.'] },
    ],
    [
      'textarea too long',
      { 1: 'ok', 6: 'x'.repeat(10_001) },
      { 'cfields.6': ['The cfields.6 field must not be greater than 10000 characters.'] },
    ],
    ['unknown field id', { 1: 'ok', 8: 'what' }, { 'cfields.8': ['The selected cfields.8 is invalid.'] }],
  ];
  for (const [name, cfields, errors] of cases) {
    test(name, () => assert.deepEqual(renderFieldErrors(checkLeadAnswers(form, cfields).errors), errors));
  }

  test('textarea up to its limit passes, counted in characters not bytes', () => {
    assert.deepEqual(checkLeadAnswers(form, { 1: 'é'.repeat(255), 6: '😀'.repeat(10_000) }).errors, []);
  });

  test('answers are stored normalized: countries upper-cased, blanks dropped', () => {
    const { answers } = checkLeadAnswers(form, { 1: 'ok', 5: ' de ', 6: '', 3: [] });
    assert.deepEqual(answers, { 1: 'ok', 5: 'DE' });
  });
});

describe('submissionForm', () => {
  test('Name, Email address, then each field with its answer; checkbox answers comma-joined', () => {
    assert.deepEqual(
      submissionForm({ name: 'N', email: 'e@x.io' }, form.slice(0, 3), { 1: 'ok', 3: ['x', 'z'] }),
      [
        { question: 'Name', answer: 'N' },
        { question: 'Email address', answer: 'e@x.io' },
        { question: 'Q1', answer: 'ok' },
        { question: 'Q2', answer: null },
        { question: 'Q3', answer: 'x, z' },
      ],
    );
  });
});

describe('assignFieldIds', () => {
  const input = (id: number | undefined, type: LeadFormField['type'] = 'input', options: string[] = []) => ({
    id,
    type,
    title: 'T',
    text: '',
    description: null,
    required: false,
    options,
  });

  test('kept ids stay, new fields count up from nextId, removed ids are not reused', () => {
    const result = assignFieldIds(form.slice(0, 2), [input(2, 'select', ['a']), input(undefined)], 8);
    assert.deepEqual(
      result.fields.map((f) => f.id),
      [2, 8],
    );
    assert.equal(result.nextId, 9);
    assert.deepEqual(result.errors, []);
  });

  test('unknown and repeated ids, missing or repeated options are refused by path', () => {
    const result = assignFieldIds(
      form.slice(0, 1),
      [input(9), input(1), input(1), input(undefined, 'radio'), input(undefined, 'select', ['a', 'a'])],
      2,
    );
    assert.deepEqual(renderFieldErrors(result.errors), {
      'leads_custom_form_fields.0.id': ['The selected leads custom form fields.0.id is invalid.'],
      'leads_custom_form_fields.2.id': ['The leads custom form fields.2.id field has a duplicate value.'],
      'leads_custom_form_fields.3.options': ['The leads custom form fields.3.options field is required.'],
      'leads_custom_form_fields.4.options': [
        'The leads custom form fields.4.options field has a duplicate value.',
      ],
    });
  });

  test('options of free-text and country fields are dropped', () => {
    assert.deepEqual(assignFieldIds([], [input(undefined, 'countries', ['x'])], 1).fields[0]?.options, []);
  });
});

describe('lead moves (the spec state table)', () => {
  const table: [LeadStatus, boolean, boolean, string | undefined, string | undefined][] = [
    ['submitted', true, true, undefined, undefined],
    ['rejected', true, false, undefined, 'The lead has already been rejected.'],
    [
      'converted',
      false,
      false,
      'The lead has already been converted.',
      'The lead has already been converted.',
    ],
  ];
  for (const [status, canConvert, canReject, convert, reject] of table) {
    test(status, () => {
      assert.deepEqual(leadFlags(status), { can_be_converted: canConvert, can_be_rejected: canReject });
      assert.equal(refusedLeadMove(status, 'convert'), convert);
      assert.equal(refusedLeadMove(status, 'reject'), reject);
      assert.equal(refusedLeadMove(status, 'convert') === undefined, canConvert);
      assert.equal(refusedLeadMove(status, 'reject') === undefined, canReject);
    });
  }
});

test('ISO 3166-1 alpha-2: 249 assigned codes, upper case only', () => {
  assert.equal(countryCodes.size, 249);
  assert.ok(isCountryCode('US') && isCountryCode('AX') && isCountryCode('SS'));
  assert.ok(!isCountryCode('us') && !isCountryCode('UK') && !isCountryCode('XK'));
});
