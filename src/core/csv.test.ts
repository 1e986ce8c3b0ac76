import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvRecord } from './csv.ts';

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
