import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvField, csvRecord } from './csv.ts';

test('csvRecord quotes only the fields that need it, doubling quotes', () => {
  const cases: [string[], string][] = [
    [['a', 'b', 'c'], 'a,b,c\n'],
    [[], '\n'],
    [[''], '\n'],
    [['', ''], ',\n'],
    [['1,5', 'x'], '"1,5",x\n'],
    [['say "hi"'], '"say ""hi"""\n'],
    [['two\nlines', 'cr\r'], '"two\nlines","cr\r"\n'],
    [[' spaced ', 'ünïcode'], ' spaced ,ünïcode\n'],
    [['"'], '""""\n'],
  ];
  for (const [fields, expected] of cases) assert.equal(csvRecord(fields), expected, JSON.stringify(fields));
});

test('csvField is one field of a record', () => {
  const cases: [string, string][] = [
    ['plain', 'plain'],
    ['', ''],
    ['1,5', '"1,5"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\r', '"cr\r"'],
    ['=SUM(A1)', '=SUM(A1)'],
  ];
  for (const [field, expected] of cases) {
    assert.equal(csvField(field), expected, JSON.stringify(field));
    assert.equal(csvRecord([field, 'x']), `${expected},x\n`);
  }
});
