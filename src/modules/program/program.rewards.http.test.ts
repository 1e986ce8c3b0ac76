import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../../../test/harness.ts';

describeEachDatabase('refer-a-friend reward settings', (server) => {
  test('GET /v1/program shows the default rewards of a referral program', async () => {
    const program = await server().newProgram('referral');
    const res = await server().request('GET', '/v1/program', { token: program.token });
    const settings = res.body.data.program.program_settings;
    const giveTen = {
      type: 'fixed',
      value: 10,
      is_currency: true,
      amount_units: 'USD',
      trigger: 'first_purchase',
      limit: null,
    };
    assert.deepEqual(settings.referrer_reward, giveTen);
    assert.deepEqual(settings.referred_reward, giveTen);
  });

  test('PUT /v1/program replaces one side, null turns a side off', async () => {
    const program = await server().newProgram('referral');
    const points = {
      type: 'percent',
      value: 5,
      is_currency: false,
      amount_units: 'points',
      trigger: 'every_purchase',
      limit: 3,
    };
    const res = await server().request('PUT', '/v1/program', {
      token: program.token,
      body: { program_settings: { referrer_reward: points, referred_reward: null } },
    });
    assert.equal(res.status, 200, res.text);
    const settings = (await server().request('GET', '/v1/program', { token: program.token })).body.data
      .program.program_settings;
    assert.deepEqual(settings.referrer_reward, points);
    assert.equal(settings.referred_reward, null);
  });

  const invalid: [string, unknown, string][] = [
    ['an unknown type', { type: 'tiered' }, 'program_settings.referrer_reward.type'],
    ['a zero value', { value: 0 }, 'program_settings.referrer_reward.value'],
    [
      'a currency reward in no currency',
      { amount_units: 'points' },
      'program_settings.referrer_reward.amount_units',
    ],
    ['an unknown trigger', { trigger: 'signup' }, 'program_settings.referrer_reward.trigger'],
    ['a negative limit', { limit: -1 }, 'program_settings.referrer_reward.limit'],
  ];
  for (const [name, change, field] of invalid) {
    test(`PUT /v1/program rejects ${name} with 422 on ${field}`, async () => {
      const program = await server().newProgram('referral');
      const reward = {
        type: 'fixed',
        value: 10,
        is_currency: true,
        amount_units: 'EUR',
        trigger: 'first_purchase',
        limit: null,
        ...(change as object),
      };
      const res = await server().request('PUT', '/v1/program', {
        token: program.token,
        body: { program_settings: { referrer_reward: reward } },
      });
      assert.equal(res.status, 422, res.text);
      assert.ok(res.error.errors[field], JSON.stringify(res.error.errors));
    });
  }

  test('reward settings are not affiliate settings', async () => {
    const program = await server().newProgram('affiliate');
    const res = await server().request('PUT', '/v1/program', {
      token: program.token,
      body: { program_settings: { referrer_reward: { type: 'fixed', value: 1 } } },
    });
    assert.equal(res.status, 422);
  });
});
