import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  adParametersIn,
  canonicalAddress,
  checkRule,
  decideFraud,
  decideSaleFraud,
  defaultFraudSettings,
  type FraudAction,
  type FraudFacts,
  type FraudRule,
  type FraudSettings,
  fraudSettingsOf,
  type HoldEnd,
  holdEndOf,
  runsSaleRules,
} from './fraud.ts';
import { isDisposableDomain } from './fraud-disposable.ts';

/** Settings with every rule at `action` (and the given overrides). */
function all(action: FraudAction, overrides: Partial<FraudSettings> = {}): FraudSettings {
  return {
    ...defaultFraudSettings,
    fraud_rules: {
      self_referral: action,
      same_address: action,
      disposable_email: action,
      paid_ads: action,
      fast_conversion: action,
    },
    ...overrides,
  };
}

type Row = [name: string, facts: FraudFacts, fired: boolean];

function table(rule: FraudRule, rows: Row[], settings: FraudSettings = all('flag')) {
  for (const [name, facts, fired] of rows) {
    const verdict = checkRule(rule, facts, settings);
    assert.equal(verdict.action, fired ? 'flag' : 'off', `${rule}: ${name}`);
    if (!fired) assert.deepEqual(verdict.evidence, {}, `${rule}: ${name} has no evidence`);
  }
}

test('self_referral: the same mailbox as the owner (an address or browser is same_address)', () => {
  table('self_referral', [
    ['same address', { email: 'amy@example.com', ownerEmail: 'amy@example.com' }, true],
    ['case and spaces', { email: ' Amy@Example.COM ', ownerEmail: 'amy@example.com' }, true],
    ['gmail dots', { email: 'a.m.y@gmail.com', ownerEmail: 'amy@gmail.com' }, true],
    ['gmail +tag', { email: 'amy+shop@gmail.com', ownerEmail: 'amy@gmail.com' }, true],
    ['googlemail alias', { email: 'A.my+x@googlemail.com', ownerEmail: 'amy@gmail.com' }, true],
    ['dots elsewhere matter', { email: 'a.my@example.com', ownerEmail: 'amy@example.com' }, false],
    ['another person', { email: 'bob@gmail.com', ownerEmail: 'amy@gmail.com' }, false],
    ['no buyer e-mail', { ownerEmail: 'amy@gmail.com' }, false],
    ['no owner e-mail', { email: 'amy@gmail.com' }, false],
    ["the owner's portal click", { visitor: 'v1', ownerVisitors: ['v0', 'v1'] }, false],
    ["the owner's portal address", { portalAddresses: ['h1'], ownerAddresses: ['h1'] }, false],
    ['nothing sent', {}, false],
  ]);
  assert.deepEqual(
    checkRule('self_referral', { email: 'amy+x@gmail.com', ownerEmail: 'amy@gmail.com' }, all('block')),
    { rule: 'self_referral', action: 'block', evidence: { matched: 'email' } },
  );
});

test('same_address: an address or click the owner used in its portal', () => {
  table('same_address', [
    ["the owner's address", { portalAddresses: ['h1'], ownerAddresses: ['h0', 'h1'] }, true],
    ['under an older key', { portalAddresses: ['new', 'old'], ownerAddresses: ['old'] }, true],
    ['another address', { portalAddresses: ['h2'], ownerAddresses: ['h0', 'h1'] }, false],
    ['owner never seen', { portalAddresses: ['h1'] }, false],
    ['no address sent', { ownerAddresses: ['h1'] }, false],
    ["the owner's click", { visitor: 'v1', ownerVisitors: ['v0', 'v1'] }, true],
    ['another click', { visitor: 'v2', ownerVisitors: ['v0', 'v1'] }, false],
    ['no click sent', { ownerVisitors: ['v1'] }, false],
    // The day's count names addresses its own way: the two namings never meet.
    ['day name against portal names', { address: 'h1', ownerAddresses: ['h1'] }, false],
  ]);
  const settings = all('block');
  assert.deepEqual(checkRule('same_address', { portalAddresses: ['h1'], ownerAddresses: ['h1'] }, settings), {
    rule: 'same_address',
    action: 'block',
    evidence: { seen_in_portal: 'address', address: 'h1' },
  });
  // The click is named first; the portal evidence wins over the day's count.
  assert.deepEqual(
    checkRule(
      'same_address',
      {
        visitor: 'v1',
        ownerVisitors: ['v1'],
        portalAddresses: ['h1'],
        ownerAddresses: ['h1'],
        address: 'd1',
        signupsFromAddress: 9,
      },
      settings,
    ).evidence,
    { seen_in_portal: 'click', click_id: 'v1' },
  );
  assert.equal(
    checkRule('same_address', { portalAddresses: ['h1'], ownerAddresses: ['h1'] }, all('off')).action,
    'off',
  );
});

test('canonicalAddress: trimmed, lower case, IPv4 mapped into IPv6 as IPv4', () => {
  const cases: [string, string][] = [
    ['203.0.113.9', '203.0.113.9'],
    [' 203.0.113.9 ', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['::FFFF:203.0.113.9', '203.0.113.9'],
    ['2001:DB8::1', '2001:db8::1'],
    ['::ffff:2001:db8::1', '::ffff:2001:db8::1'],
  ];
  for (const [given, canonical] of cases) assert.equal(canonicalAddress(given), canonical, given);
});

test('same_address: a busy address for one owner, from the limit on', () => {
  const limit3 = all('flag', { same_address_limit: 3 });
  table(
    'same_address',
    [
      ['below the limit', { address: 'h', signupsFromAddress: 2 }, false],
      ['at the limit', { address: 'h', signupsFromAddress: 3 }, true],
      ['above', { address: 'h', signupsFromAddress: 9 }, true],
      ['no address sent', { signupsFromAddress: 9 }, false],
      ['not counted', { address: 'h' }, false],
    ],
    limit3,
  );
  assert.deepEqual(checkRule('same_address', { address: 'h', signupsFromAddress: 3 }, limit3).evidence, {
    address: 'h',
    signups_in_a_day: 3,
    limit: 3,
  });
  table('same_address', [['limit 1, one before', { address: 'h', signupsFromAddress: 1 }, true]], {
    ...limit3,
    same_address_limit: 1,
  });
});

test('disposable_email: a domain of the maintained list, or a subdomain of one', () => {
  table('disposable_email', [
    ['listed', { email: 'x@mailinator.com' }, true],
    ['case', { email: 'X@MailInator.COM' }, true],
    ['subdomain of a listed one', { email: 'x@abc.mailinator.com' }, true],
    ['ordinary provider', { email: 'x@gmail.com' }, false],
    ['company domain', { email: 'x@example.com' }, false],
    ['no e-mail', {}, false],
    ['no domain', { email: 'x@' }, false],
    ['not an address', { email: 'mailinator.com' }, false],
  ]);
  assert.deepEqual(checkRule('disposable_email', { email: 'x@yopmail.com' }, all('flag')).evidence, {
    domain: 'yopmail.com',
  });
  assert.equal(isDisposableDomain('com'), false);
});

test('paid_ads: ad click ids on the landing URL while the program forbids paid ads', () => {
  const forbidden = all('flag', { paid_ads_allowed: false });
  table(
    'paid_ads',
    [
      ['gclid', { landingUrl: 'https://shop.example/?gclid=abc' }, true],
      ['gbraid', { landingUrl: 'https://shop.example/?aff=k&gbraid=1' }, true],
      ['wbraid', { landingUrl: 'https://shop.example/p?wbraid=1' }, true],
      ['fbclid', { landingUrl: 'https://shop.example/?fbclid=1' }, true],
      ['msclkid', { landingUrl: 'https://shop.example/?msclkid=1' }, true],
      ['ttclid', { landingUrl: 'https://shop.example/?ttclid=1' }, true],
      ['empty value still names the ad', { landingUrl: 'https://shop.example/?gclid=' }, true],
      ['utm only', { landingUrl: 'https://shop.example/?utm_source=google' }, false],
      ['id in the fragment only', { landingUrl: 'https://shop.example/#gclid=1' }, false],
      ['not a URL', { landingUrl: 'gclid=1' }, false],
      ['no landing URL', {}, false],
    ],
    forbidden,
  );
  table('paid_ads', [['allowed', { landingUrl: 'https://shop.example/?gclid=abc' }, false]], all('flag'));
  assert.deepEqual(adParametersIn('https://s.example/?fbclid=1&gclid=2'), ['gclid', 'fbclid']);
});

test('fast_conversion: a sale sooner than the setting after its click', () => {
  const ten = all('flag', { fast_conversion_seconds: 10 });
  const click = '2026-01-01T00:00:00.000000Z';
  table(
    'fast_conversion',
    [
      ['same instant', { clickedAt: click, soldAt: click }, true],
      ['9.9 s', { clickedAt: click, soldAt: '2026-01-01T00:00:09.900000Z' }, true],
      ['exactly 10 s', { clickedAt: click, soldAt: '2026-01-01T00:00:10.000000Z' }, false],
      ['an hour', { clickedAt: click, soldAt: '2026-01-01T01:00:00.000000Z' }, false],
      [
        'sale before the click (backdated)',
        { clickedAt: click, soldAt: '2025-12-31T23:59:59.000000Z' },
        false,
      ],
      ['no click', { soldAt: click }, false],
      ['no sale time', { clickedAt: click }, false],
    ],
    ten,
  );
  table('fast_conversion', [['0 s never fires', { clickedAt: click, soldAt: click }, false]], {
    ...ten,
    fast_conversion_seconds: 0,
  });
});

test('an action of off silences a rule that would fire; block is reported as such', () => {
  const facts: FraudFacts = { email: 'amy@mailinator.com', ownerEmail: 'amy@mailinator.com' };
  assert.deepEqual(decideFraud(facts, all('off')), { blocked: false, fired: [] });
  const mixed: FraudSettings = {
    ...defaultFraudSettings,
    fraud_rules: { ...defaultFraudSettings.fraud_rules, self_referral: 'flag', disposable_email: 'block' },
  };
  const decision = decideFraud(facts, mixed);
  assert.equal(decision.blocked, true);
  assert.deepEqual(
    decision.fired.map((v) => [v.rule, v.action]),
    [
      ['self_referral', 'flag'],
      ['disposable_email', 'block'],
    ],
  );
  assert.deepEqual(decideFraud({ email: 'bob@example.com' }, all('block')), { blocked: false, fired: [] });
});

test('the defaults: self-referral blocks as before, a program sending no context sees nothing new', () => {
  const decision = decideFraud(
    { email: 'a.my@gmail.com', ownerEmail: 'amy@gmail.com' },
    defaultFraudSettings,
  );
  assert.deepEqual(decision, {
    blocked: true,
    fired: [{ rule: 'self_referral', action: 'block', evidence: { matched: 'email' } }],
  });
  assert.deepEqual(
    decideFraud({ email: 'x@example.com', ownerEmail: 'amy@gmail.com' }, defaultFraudSettings).fired,
    [],
  );
});

test('a sale runs fast_conversion over its click, and same_address over the portal sightings of its owner', () => {
  const clicked = { clickedAt: '2026-01-01T10:00:00.000000Z', landingUrl: 'https://s.example/?gclid=1' };
  const every = all('flag', { paid_ads_allowed: false, fast_conversion_seconds: 30 });
  const quick = decideSaleFraud({ ...clicked, soldAt: '2026-01-01T10:00:05.000000Z' }, every);
  assert.deepEqual(
    quick.fired.map((v) => v.rule),
    ['fast_conversion'],
  );
  assert.equal(quick.blocked, false);
  const slow = decideSaleFraud({ ...clicked, soldAt: '2026-01-01T10:00:30.000000Z' }, every);
  assert.deepEqual(slow.fired, []);
  const blocked = decideSaleFraud({ ...clicked, soldAt: '2026-01-01T10:00:01.000000Z' }, all('block'));
  assert.equal(blocked.blocked, true);
  assert.deepEqual(decideSaleFraud({ soldAt: '2026-01-01T10:00:01.000000Z' }, every).fired, []);
  const seen = decideSaleFraud(
    { soldAt: '2026-01-01T10:00:01.000000Z', portalAddresses: ['h1'], ownerAddresses: ['h1'] },
    every,
  );
  assert.deepEqual(seen.fired, [
    { rule: 'same_address', action: 'flag', evidence: { seen_in_portal: 'address', address: 'h1' } },
  ]);
  assert.equal(runsSaleRules(defaultFraudSettings), true, 'same_address flags by default');
  assert.equal(runsSaleRules(all('off')), false);
  assert.equal(runsSaleRules(every), true);
});

test('the end of a hold: denied or voided when confirmed with deny, else passed on or released', () => {
  const cases: [type: 'affiliate' | 'referral', deny: boolean, anotherOpenFlag: boolean, end: HoldEnd][] = [
    ['affiliate', true, false, 'deny'],
    ['affiliate', true, true, 'deny'],
    ['affiliate', false, true, 'pass'],
    ['affiliate', false, false, 'release'],
    ['referral', true, false, 'void'],
    ['referral', true, true, 'void'],
    ['referral', false, true, 'pass'],
    ['referral', false, false, 'release'],
  ];
  for (const [type, deny, anotherOpenFlag, end] of cases)
    assert.equal(
      holdEndOf(type, { deny, anotherOpenFlag }),
      end,
      `${type} deny=${deny} next=${anotherOpenFlag}`,
    );
});

test('fraud settings read only their own keys, over the defaults', () => {
  const cases: [string, Record<string, unknown>, FraudSettings][] = [
    ['nothing stored', {}, defaultFraudSettings],
    ['other settings are ignored', { timezone: 'Europe/Berlin', cookie_days: 60 }, defaultFraudSettings],
    [
      'one rule changed keeps the others',
      { fraud_rules: { fast_conversion: 'block' }, same_address_limit: 5 },
      {
        ...defaultFraudSettings,
        fraud_rules: { ...defaultFraudSettings.fraud_rules, fast_conversion: 'block' },
        same_address_limit: 5,
      },
    ],
    [
      'false and zero are kept, not defaulted',
      { paid_ads_allowed: false, fast_conversion_seconds: 0 },
      { ...defaultFraudSettings, paid_ads_allowed: false, fast_conversion_seconds: 0 },
    ],
  ];
  for (const [name, stored, expected] of cases) assert.deepEqual(fraudSettingsOf(stored), expected, name);
});
