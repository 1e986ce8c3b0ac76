import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  clickLandingUrl,
  isBot,
  isCountable,
  isPlausibleLinkKey,
  redirectTarget,
  saltDays,
  shouldSetCookie,
  visitorHash,
} from './tracking.ts';

const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131 Safari/537.36';

test('which requests count as clicks', () => {
  const cases: [string, Record<string, string>, boolean][] = [
    ['GET', { 'user-agent': CHROME }, true],
    ['POST', { 'user-agent': CHROME }, true],
    ['GET', { 'user-agent': `${CHROME} HeadlessChrome` }, true],
    ['HEAD', { 'user-agent': CHROME }, false],
    ['GET', {}, false],
    ['GET', { 'user-agent': '' }, false],
    ['GET', { 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' }, false],
    ['GET', { 'user-agent': 'facebookexternalhit/1.1' }, false],
    ['GET', { 'user-agent': 'Slackbot-LinkExpanding 1.0' }, false],
    ['GET', { 'user-agent': 'curl/8.5.0' }, false],
    ['GET', { 'user-agent': CHROME, purpose: 'prefetch' }, false],
    ['GET', { 'user-agent': CHROME, 'sec-purpose': 'prefetch;prerender' }, false],
    ['GET', { 'user-agent': CHROME, 'x-moz': 'prefetch' }, false],
  ];
  for (const [method, headers, counted] of cases) {
    assert.equal(isCountable(method, headers), counted, `${method} ${JSON.stringify(headers)}`);
  }
  assert.equal(isBot(undefined), true);
});

test('first click keeps a stored key, last click replaces it', () => {
  assert.equal(shouldSetCookie('last_click', undefined), true);
  assert.equal(shouldSetCookie('last_click', 'earlier'), true);
  assert.equal(shouldSetCookie('first_click', undefined), true);
  assert.equal(shouldSetCookie('first_click', ''), true);
  assert.equal(shouldSetCookie('first_click', 'earlier'), false);
});

test('redirect targets are stored http(s) URLs only', () => {
  const link = (redirectUrl: string | null) => ({ key: 'k y', redirectUrl });
  const cases: [Parameters<typeof redirectTarget>[0], string | undefined][] = [
    [
      { website: 'https://shop.example', parameter: 'aff', link: link(null) },
      'https://shop.example/?aff=k+y',
    ],
    [
      { website: 'https://shop.example/p?x=1', parameter: 'ref', link: link(null) },
      'https://shop.example/p?x=1&ref=k+y',
    ],
    [
      { website: 'https://shop.example', parameter: 'aff', link: link('https://go.example/a') },
      'https://go.example/a',
    ],
    [
      { website: 'https://shop.example', parameter: 'aff', link: link('javascript:alert(1)') },
      'https://shop.example/?aff=k+y',
    ],
    [{ website: null, parameter: 'aff', link: link(null) }, undefined],
    [{ website: 'https://shop.example', parameter: 'aff', link: undefined }, 'https://shop.example/'],
    [{ website: 'ftp://shop.example', parameter: 'aff', link: undefined }, undefined],
    [{ website: null, parameter: 'aff', link: undefined }, undefined],
  ];
  for (const [input, expected] of cases) assert.equal(redirectTarget(input), expected, JSON.stringify(input));
});

test('link keys worth looking up', () => {
  assert.equal(isPlausibleLinkKey('abc-123_X'), true);
  assert.equal(isPlausibleLinkKey('✓😀'), true);
  assert.equal(isPlausibleLinkKey(''), false);
  assert.equal(isPlausibleLinkKey('k'.repeat(256)), false);
  assert.equal(isPlausibleLinkKey('../etc'), false);
  assert.equal(isPlausibleLinkKey('a\\b'), false);
  assert.equal(isPlausibleLinkKey('a\u0000b'), false);
});

test('visitors are hashed under the day salt; the day before is checked too', () => {
  assert.deepEqual(saltDays(new Date('2026-03-01T00:30:00Z')), {
    today: '2026-03-01',
    yesterday: '2026-02-28',
  });
  const a = visitorHash('salt-1', '203.0.113.7', CHROME);
  assert.equal(a, visitorHash('salt-1', '203.0.113.7', CHROME));
  assert.notEqual(a, visitorHash('salt-2', '203.0.113.7', CHROME));
  assert.notEqual(a, visitorHash('salt-1', '203.0.113.8', CHROME));
  assert.ok(!a.includes('203.0.113.7'));
});

test('a click keeps an absolute http(s) landing URL, without its fragment', () => {
  const cases: [string, string | undefined][] = [
    ['https://shop.example.com/?aff=pat&gclid=abc#top', 'https://shop.example.com/?aff=pat&gclid=abc'],
    ['http://shop.example.com/landing', 'http://shop.example.com/landing'],
    ['HTTPS://Shop.Example.com/a?b=1', 'https://shop.example.com/a?b=1'],
    ['/relative?gclid=1', undefined],
    ['javascript:alert(1)', undefined],
    ['file:///home/page.html', undefined],
    ['not a url', undefined],
    [`https://shop.example.com/?q=${'x'.repeat(2048)}`, undefined],
  ];
  for (const [raw, expected] of cases) assert.equal(clickLandingUrl(raw), expected, raw);
});
