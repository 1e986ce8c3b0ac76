import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CsvChunk, type CsvWrite, csvField, csvRecord, csvValue, spreadsheetText } from './csv.ts';

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

test('CsvChunk copies what it gathered into a buffer it is given, of at least its size', () => {
  const chunk = new CsvChunk();
  const records = ['ünïcode,€\n', `${'x'.repeat(300_000)}\n`, 'end\n'];
  for (const record of records) chunk.add(record);
  const size = chunk.size;
  assert.equal(size, Buffer.byteLength(records.join('')));
  const target = Buffer.alloc(size + 10, 0x2a);
  const bytes = chunk.takeInto(target);
  assert.equal(bytes.buffer, target.buffer, 'written in place');
  assert.equal(bytes.toString('utf8'), records.join(''));
  assert.equal(target.at(size), 0x2a, 'nothing past it');
  assert.equal(chunk.size, 0);
});

test('csvValue writes a stored value as its kind of field', () => {
  const cases: [unknown, CsvWrite, string][] = [
    [null, 'text', ''],
    [undefined, 'amount', ''],
    ['=1+1', 'text', "'=1+1"],
    ['a,b', 'text', '"a,b"'],
    ['-5', 'field', '-5'],
    ['a "b"', 'field', '"a ""b"""'],
    [1_500_000, 'amount', '1.5'],
    [-1, 'amount', '-0.000001'],
    [999_999_999_999_999_999n, 'amount', '999999999999.999999'],
    ['2026-01-02T03:04:05.000006Z', 'as-is', '2026-01-02T03:04:05.000006Z'],
    [42, 'as-is', '42'],
  ];
  for (const [value, write, expected] of cases)
    assert.equal(csvValue(value, write), expected, `${String(value)} ${write}`);
  assert.throws(() => csvValue('12', 'amount'), TypeError, 'an amount is stored as an integer');
});
