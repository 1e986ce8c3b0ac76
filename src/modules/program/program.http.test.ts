import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../../../test/harness.ts';
import { addDays, dayOf, nowTimestamp } from '../../core/time.ts';
import { recordProgramActivity } from './program.service.ts';

describeEachDatabase('program endpoints', (server) => {
  test('GET /v1/program shows the program, its type label and its default settings', async () => {
    const program = await server().newProgram('affiliate', {
      name: 'acme partners',
      website: 'https://acme.example',
    });
    const res = await server().request('GET', '/v1/program', { token: program.token });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    const data = res.body.data;
    assert.equal(res.body.status, 1);
    assert.deepEqual(
      {
        id: data.program.id,
        public_id: data.program.public_id,
        type: data.program.type,
        initial: data.program.initial,
      },
      { id: program.id, public_id: program.publicId, type: 'Affiliate', initial: 'A' },
    );
    assert.match(data.program.created_at, /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(data.program.program_settings.currency, 'USD');
    assert.equal(data.program.portal_settings.program_page_enabled, true);
    assert.equal(data.overview_program_current_settings.website_url, 'https://acme.example');
    for (const name of [
      'total_customers',
      'total_referring_customers',
      'total_referred_customers',
      'total_sales',
      'total_clicks',
      'total_rejected_self_referrals',
      'participation',
    ]) {
      const figures = new Map(Object.entries(data));
      assert.equal(figures.get(name), 0);
      assert.equal(figures.get(`${name}_before`), 0);
      assert.equal(figures.get(`${name}_growth`), 0);
    }
    assert.deepEqual(data.total_revenue_from_sales, {});
  });

  test('each type shows its own settings and nothing of the others', async () => {
    const referral = await server().newProgram('referral');
    const res = await server().request('GET', '/v1/program', { token: referral.token });
    assert.equal(res.body.data.program.type, 'Referral');
    assert.deepEqual(Object.keys(res.body.data.program.program_settings).sort(), [
      'attribution',
      'brand_color',
      'currency',
      'fast_conversion_seconds',
      'fraud_rules',
      'logo_url',
      'paid_ads_allowed',
      'referral_parameter',
      'referral_portal_enabled',
      'referred_reward',
      'referrer_reward',
      'rewards_notification_enabled',
      'same_address_limit',
      'terms_url',
      'timezone',
      'welcome_email_enabled',
    ]);
    assert.equal(res.body.data.program.portal_settings.popup_form_enabled, false);
    assert.equal('leads_page_enabled' in res.body.data.program.portal_settings, false);
  });

  test('GET /v1/program/overview answers the same body with a Deprecation header', async () => {
    const program = await server().newProgram('newsletter');
    const current = await server().request('GET', '/v1/program', { token: program.token });
    const old = await server().request('GET', '/v1/program/overview', { token: program.token });
    assert.equal(old.status, 200);
    assert.equal(old.headers.get('deprecation'), 'true');
    assert.deepEqual(old.body, current.body);
    assert.equal(current.headers.get('deprecation'), null);
  });

  test('PUT /v1/program changes what is given and keeps what is omitted', async () => {
    const program = await server().newProgram('affiliate');
    const res = await server().request('PUT', '/v1/program', {
      token: program.token,
      body: {
        name: 'Renamed',
        program_settings: { currency: 'eur', cookie_lifetime: 90 },
        portal_settings: { widget_enabled: true },
      },
    });
    assert.deepEqual(res.body, { status: 1, message: 'Program updated successfully' });
    const after = (await server().request('GET', '/v1/program', { token: program.token })).body.data.program;
    assert.equal(after.name, 'Renamed');
    assert.equal(after.website, 'https://shop.example.com');
    assert.equal(after.program_settings.currency, 'EUR');
    assert.equal(after.program_settings.cookie_lifetime, 90);
    assert.equal(after.program_settings.welcome_email_enabled, true);
    assert.equal(after.portal_settings.widget_enabled, true);

    await server().request('PUT', '/v1/program', {
      token: program.token,
      body: { program_settings: { onboarding_enabled: true } },
    });
    const again = (await server().request('GET', '/v1/program', { token: program.token })).body.data.program;
    assert.equal(again.program_settings.currency, 'EUR');
    assert.equal(again.program_settings.onboarding_enabled, true);
  });

  test('a commission without duration reads as lifetime; a limited one without its count is a 422', async () => {
    const program = await server().newProgram('affiliate');
    const put = (commission: Record<string, unknown>) =>
      server().request('PUT', '/v1/program', {
        token: program.token,
        body: { program_settings: { commission } },
      });
    assert.equal((await put({ type: 'percent', value: 30 })).status, 200);
    const read = async () =>
      (await server().request('GET', '/v1/program', { token: program.token })).body.data.program
        .program_settings.commission;
    assert.deepEqual(await read(), {
      type: 'percent',
      value: 30,
      duration: 'lifetime',
      duration_value: null,
    });
    for (const duration of ['times', 'days', 'months', 'years']) {
      const refused = await put({ type: 'percent', value: 30, duration });
      assert.equal(refused.status, 422, duration);
      assert.deepEqual(Object.keys(refused.error.errors), ['program_settings.commission.duration_value']);
      assert.equal(
        refused.error.message,
        'The program settings.commission.duration value field is required.',
      );
    }
    assert.deepEqual(await read(), {
      type: 'percent',
      value: 30,
      duration: 'lifetime',
      duration_value: null,
    });
    assert.equal((await put({ type: 'fixed', value: 5, duration: 'times', duration_value: 2 })).status, 200);
    assert.deepEqual(await read(), { type: 'fixed', value: 5, duration: 'times', duration_value: 2 });
  });

  test('PUT /v1/program treats null and "" as not given', async () => {
    const program = await server().newProgram('affiliate', { name: 'Keep me' });
    const res = await server().request('PUT', '/v1/program', {
      token: program.token,
      body: { name: null, website: '' },
    });
    assert.equal(res.status, 200);
    const after = (await server().request('GET', '/v1/program', { token: program.token })).body.data.program;
    assert.equal(after.name, 'Keep me');
    assert.equal(after.website, 'https://shop.example.com');
  });

  const invalid: [string, unknown, string, string][] = [
    [
      'name too long',
      { name: 'x'.repeat(256) },
      'name',
      'The name field must not be greater than 255 characters.',
    ],
    ['website not a URL', { website: 'not a url' }, 'website', 'The website field must be a valid URL.'],
    [
      'website too long',
      { website: `https://a.com/${'x'.repeat(240)}` },
      'website',
      'The website field must not be greater than 250 characters.',
    ],
    [
      'unknown currency',
      { program_settings: { currency: 'XYZ' } },
      'program_settings.currency',
      'The selected program settings.currency is invalid.',
    ],
    [
      'cookie lifetime zero',
      { program_settings: { cookie_lifetime: 0 } },
      'program_settings.cookie_lifetime',
      'The program settings.cookie lifetime field must be between 1 and 9999999.',
    ],
    [
      'cookie lifetime too big',
      { program_settings: { cookie_lifetime: 10_000_000 } },
      'program_settings.cookie_lifetime',
      'The program settings.cookie lifetime field must be between 1 and 9999999.',
    ],
    [
      'boolean as string',
      { portal_settings: { widget_enabled: 'true' } },
      'portal_settings.widget_enabled',
      'The portal settings.widget enabled field must be true or false.',
    ],
    [
      'key of another type',
      { program_settings: { referral_portal_enabled: true } },
      'program_settings.referral_portal_enabled',
      'The program settings.referral portal enabled field is prohibited.',
    ],
    [
      'settings not an object',
      { program_settings: 'x' },
      'program_settings',
      'The program settings field must be an array.',
    ],
  ];
  for (const [name, body, field, message] of invalid) {
    test(`PUT /v1/program rejects ${name} with 422 on ${field} and changes nothing`, async () => {
      const program = await server().newProgram('affiliate', { name: 'Before' });
      const before = (await server().request('GET', '/v1/program', { token: program.token })).body;
      const res = await server().request('PUT', '/v1/program', { token: program.token, body });
      assert.equal(res.status, 422);
      assert.equal(res.body.status, 0);
      assert.deepEqual(res.error.errors[field], [message]);
      assert.equal(res.error.message, message);
      const after = (await server().request('GET', '/v1/program', { token: program.token })).body;
      assert.deepEqual(after, before);
    });
  }

  test('several invalid fields are all reported, the message counts the rest', async () => {
    const program = await server().newProgram('affiliate');
    const res = await server().request('PUT', '/v1/program', {
      token: program.token,
      body: { website: 'nope', program_settings: { currency: 'NOPE', cookie_lifetime: -1 } },
    });
    assert.equal(res.status, 422);
    assert.deepEqual(Object.keys(res.error.errors).sort(), [
      'program_settings.cookie_lifetime',
      'program_settings.currency',
      'website',
    ]);
    assert.match(res.error.message, /\(and 2 more errors\)$/);
  });

  test('the overview counts the last 30 days against the 30 before', async () => {
    const program = await server().newProgram('referral');
    const today = dayOf(nowTimestamp(server().deps.clock));
    const at = (daysAgo: number) => `${addDays(today, -daysAgo)}T10:00:00.000000Z`;
    const db = server().deps.database.db;
    await recordProgramActivity(db, program.id, at(0), {
      customers: 3,
      referring_customers: 1,
      sales: 2,
      'revenue:usd': 1_124_900_000,
    });
    await recordProgramActivity(db, program.id, at(29), { customers: 1 });
    await recordProgramActivity(db, program.id, at(30), { customers: 2, referring_customers: 1 });
    await recordProgramActivity(db, program.id, at(90), { customers: 50 });
    const data = (await server().request('GET', '/v1/program', { token: program.token })).body.data;
    assert.equal(data.total_customers, 4);
    assert.equal(data.total_customers_before, 2);
    assert.equal(data.total_customers_growth, 100);
    assert.equal(data.total_referring_customers, 1);
    assert.equal(data.total_sales, 2);
    assert.equal(data.total_sales_before, 0);
    assert.equal(data.total_sales_growth, 100);
    assert.equal(data.participation, 25);
    assert.equal(data.participation_before, 50);
    assert.equal(data.participation_growth, -50);
    assert.deepEqual(data.total_revenue_from_sales, { usd: '$1,124.90' });
  });

  test('active_rewards counts the reward rules the settings switch on', async () => {
    const referral = await server().newProgram('referral');
    const read = async (token: string) =>
      (await server().request('GET', '/v1/program', { token })).body.data.active_rewards;
    assert.equal(await read(referral.token), 2, 'both sides rewarded by default');
    await server().request('PUT', '/v1/program', {
      token: referral.token,
      body: { program_settings: { referrer_reward: null } },
    });
    assert.equal(await read(referral.token), 1);
    const affiliate = await server().newProgram('affiliate');
    assert.equal(await read(affiliate.token), 1, 'the default commission');
    await server().request('PUT', '/v1/program', {
      token: affiliate.token,
      body: {
        program_settings: {
          tier2_commission: { type: 'percent', value: 5 },
          product_commissions: [{ product_id: 'p1', type: 'fixed', value: 3 }],
        },
      },
    });
    assert.equal(await read(affiliate.token), 3);
    assert.equal(await read((await server().newProgram('newsletter')).token), 0);
  });

  test('GET /v1/test tells which program a key belongs to and what the key may do', async () => {
    const program = await server().newProgram('referral', { name: 'Friends' });
    const res = await server().request('GET', '/v1/test', { token: program.readToken });
    assert.deepEqual(res.body, {
      data: {
        program: { id: program.id, pub_id: program.publicId, name: 'Friends', type: 'Referral' },
        key: { scope: 'read' },
      },
      status: 1,
    });
    const full = await server().request('GET', '/v1/test', { token: program.token });
    assert.deepEqual(full.body.data.key, { scope: 'full' });
  });
});
