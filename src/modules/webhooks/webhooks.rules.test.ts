import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AddressGuard, ipLiteralOf } from './webhooks.address-guard.ts';
import { JITTER, MAX_ATTEMPTS, RETRY_DELAYS_MS, retryDelayMs, verdictOf } from './webhooks.schedule.ts';

describe('SSRF address guard', () => {
  const strict = new AddressGuard([]);
  const cases: [string, boolean][] = [
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['127.0.0.1', false],
    ['127.255.0.9', false],
    ['10.2.3.4', false],
    ['172.16.0.1', false],
    ['172.32.0.1', true],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::', false],
    ['::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['::127.0.0.1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['fd12:3456::1', false],
    ['ff02::1', false],
    ['2001:db8::1', false],
    ['2002:7f00:1::1', false],
    ['2606:4700:4700::1111', true],
    ['not-an-ip', false],
  ];
  for (const [address, permitted] of cases) {
    test(`${address} is ${permitted ? 'public' : 'refused'}`, () =>
      assert.equal(strict.permits(address), permitted));
  }

  test('WEBHOOK_ALLOW_CIDRS opens a range, in IPv4 and IPv4-mapped form', () => {
    const guard = new AddressGuard(['127.0.0.0/8', 'fd00::/8']);
    assert.equal(guard.permits('127.0.0.1'), true);
    assert.equal(guard.permits('::ffff:127.0.0.1'), true);
    assert.equal(guard.permits('fd12::1'), true);
    assert.equal(guard.permits('10.0.0.1'), false);
    assert.equal(guard.permits('::1'), false);
  });

  test('IP literals in any notation are recognised through the URL parser', () => {
    assert.equal(ipLiteralOf('http://2130706433/'), '127.0.0.1');
    assert.equal(ipLiteralOf('http://0x7f.0.0.1:8080/x'), '127.0.0.1');
    assert.equal(ipLiteralOf('http://017700000001/'), '127.0.0.1');
    assert.equal(ipLiteralOf('http://127.1/'), '127.0.0.1');
    assert.equal(ipLiteralOf('http://[::ffff:127.0.0.1]/'), '::ffff:7f00:1');
    assert.equal(ipLiteralOf('https://hooks.example.com/'), undefined);
    assert.equal(strict.refusedLiteral('http://0x7f.1/'), '127.0.0.1');
    assert.equal(strict.refusedLiteral('https://8.8.8.8/'), undefined);
  });

  test('a name resolving to loopback is refused by the lookup', async () => {
    const error = await new Promise<Error | null>((resolve) =>
      strict.lookup()('localhost', { all: true } as never, (e) => resolve(e)),
    );
    assert.match(String(error?.message), /^blocked: /);
  });
});

describe('retry schedule', () => {
  const outcome = (statusCode: number | null, blocked = false) => ({
    statusCode,
    durationMs: 1,
    error: null,
    blocked,
  });

  test('what each answer means', () => {
    const table: [number | null, string][] = [
      [200, 'succeeded'],
      [204, 'succeeded'],
      [301, 'retry'],
      [302, 'retry'],
      [400, 'final'],
      [401, 'final'],
      [404, 'final'],
      [410, 'gone'],
      [422, 'final'],
      [429, 'retry'],
      [500, 'retry'],
      [503, 'retry'],
      [null, 'retry'],
    ];
    for (const [code, verdict] of table) assert.equal(verdictOf(outcome(code)), verdict, String(code));
    assert.equal(verdictOf(outcome(null, true)), 'final');
  });

  test('Standard Webhooks delays with up to 10 % jitter, ten attempts in all', () => {
    assert.equal(MAX_ATTEMPTS, 10);
    assert.deepEqual(
      RETRY_DELAYS_MS.map((ms) => ms / 1000),
      [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400],
    );
    assert.equal(
      retryDelayMs(1, () => 0),
      5000,
    );
    assert.equal(
      retryDelayMs(1, () => 1),
      5000 * (1 + JITTER),
    );
    assert.equal(
      retryDelayMs(9, () => 0),
      86_400_000,
    );
    assert.equal(
      retryDelayMs(10, () => 0),
      undefined,
    );
  });
});
