import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  accentOfFileName,
  brandedEmailHtml,
  brandingProblems,
  brandOf,
  contrastWithWhite,
  declaresDocumentType,
  ratioInWords,
  sniffLogo,
} from './branding.ts';

test('contrast with white text follows WCAG 2 (black 21:1, white 1:1)', () => {
  const cases: [color: string, ratio: string][] = [
    ['#000000', '21.00'],
    ['#ffffff', '1.00'],
    ['#1d4ed8', '6.70'],
    ['#0f766e', '5.47'],
    ['#767676', '4.54'],
    ['#777777', '4.47'],
    ['#FACC15', '1.53'],
  ];
  for (const [color, ratio] of cases) assert.equal(ratioInWords(contrastWithWhite(color)), ratio, color);
});

test('branding settings: a colour under 4.5:1 and a URL that is not https are refused by field', () => {
  const cases: [given: Record<string, unknown>, fields: string[]][] = [
    [{ brand_color: '#1d4ed8', terms_url: 'https://a.example/terms', logo_url: null }, []],
    [{ brand_color: '#777777' }, ['program_settings.brand_color']],
    [{ terms_url: 'http://a.example/terms' }, ['program_settings.terms_url']],
    [
      { logo_url: 'ftp://a.example/logo.png', brand_color: '#ffff00' },
      ['program_settings.brand_color', 'program_settings.logo_url'],
    ],
    [{ brand_color: null, terms_url: null }, []],
  ];
  for (const [given, fields] of cases)
    assert.deepEqual(
      brandingProblems(given).map((p) => p.field),
      fields,
      JSON.stringify(given),
    );
  assert.deepEqual(brandingProblems({ brand_color: '#777777' })[0]?.params, ['4.47', '4.5']);
});

test('logos are told by their bytes: PNG, JPEG, SVG (after a declaration, comments or a doctype), else nothing', () => {
  const cases: [bytes: Buffer, type: string | undefined][] = [
    [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]), 'image/png'],
    [Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
    [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml'],
    [Buffer.from('\uFEFF<?xml version="1.0"?>\n<!-- made by hand -->\n<svg>'), 'image/svg+xml'],
    [Buffer.from('<!DOCTYPE svg [<!ENTITY a "b">]><svg>'), 'image/svg+xml'],
    [Buffer.from('GIF89a'), undefined],
    [Buffer.from('<html><svg>'), undefined],
    [Buffer.from(''), undefined],
  ];
  for (const [bytes, type] of cases) assert.equal(sniffLogo(bytes), type, bytes.toString('latin1'));
  assert.equal(declaresDocumentType('<!doctype svg><svg/>'), true);
  assert.equal(declaresDocumentType('<svg><text>doctype</text></svg>'), false);
});

test('a brand: the uploaded logo wins over the URL; a colour that no longer passes is not used', () => {
  const program = { name: 'Acme', public_id: 'abc', logo_digest: 'd1' };
  assert.deepEqual(
    brandOf(program, {
      brand_color: '#0F766E',
      logo_url: 'https://cdn.example/l.png',
      terms_url: 'https://t.example',
    }),
    { name: 'Acme', logoUrl: '/logos/abc/d1', accent: '#0f766e', termsUrl: 'https://t.example' },
  );
  assert.deepEqual(
    brandOf(
      { ...program, logo_digest: null },
      { brand_color: '#eeeeee', logo_url: 'https://cdn.example/l.png' },
    ),
    {
      name: 'Acme',
      logoUrl: 'https://cdn.example/l.png',
      accent: null,
      termsUrl: null,
    },
  );
  assert.equal(accentOfFileName('0f766e.css'), '#0f766e');
  assert.equal(accentOfFileName('0F766E.css'), undefined, 'one name per colour');
  assert.equal(accentOfFileName('0f766e.js'), undefined);
});

test('a branded e-mail escapes the name, makes the logo absolute, and leaves the logo out without a base URL', () => {
  const brand = {
    name: 'A & <B>',
    logoUrl: '/logos/abc/d1',
    accent: null,
    termsUrl: 'https://t.example/"x"',
  };
  const html = brandedEmailHtml(brand, '<p>Hi</p>', 'https://vouch.example');
  assert.ok(html.includes('<img src="https://vouch.example/logos/abc/d1" alt="A &#38; &#60;B&#62;"'));
  assert.ok(html.includes('href="https://t.example/&#34;x&#34;"'));
  assert.ok(html.includes('#1d4ed8'), "Vouch's blue without a colour");
  const noBase = brandedEmailHtml(brand, '<p>Hi</p>', undefined);
  assert.doesNotMatch(noBase, /<img/);
  assert.ok(noBase.includes('<strong style="font-size:18px">A &#38; &#60;B&#62;</strong>'));
});
