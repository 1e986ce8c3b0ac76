import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CsvChunk, csvField, csvRecord, spreadsheetText } from './csv.ts';

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

test('spreadsheetText never starts a formula, and quotes as csvField does', () => {
  const cases: [string, string][] = [
    ['plain', 'plain'],
    ['', ''],
    ['a-b+c=d@e', 'a-b+c=d@e'],
    ['=SUM(A1)', "'=SUM(A1)"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@cmd', "'@cmd"],
    ['\tx', "'\tx"],
    ['\rx', `"'\rx"`],
    ['1,5', '"1,5"'],
    ['say "hi"', '"say ""hi"""'],
    ['=HYPERLINK("x","y")', `"'=HYPERLINK(""x"",""y"")"`],
    ['two\nlines', '"two\nlines"'],
    ['ünïcode', 'ünïcode'],
  ];
  for (const [text, expected] of cases) assert.equal(spreadsheetText(text), expected, JSON.stringify(text));
});

test('CsvChunk gathers records as UTF-8, past its working buffer too', () => {
  const chunk = new CsvChunk();
  assert.equal(chunk.take().length, 0);
  const records = ['a,b\n', 'ünïcode,€,𝄞\n', `${'x'.repeat(200_000)}\n`, `${'é'.repeat(100_000)}\n`, 'end\n'];
  for (let round = 0; round < 2; round++) {
    for (const record of records) chunk.add(record);
    assert.equal(chunk.take().toString('utf8'), records.join(''));
  }
  chunk.add('last\n');
  assert.equal(chunk.take().toString('utf8'), 'last\n');
});
