import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../../../test/harness.ts';

describeEachDatabase('program fraud settings', (server) => {
  const defaults = {
    fraud_rules: {
      self_referral: 'block',
      same_address: 'flag',
      disposable_email: 'flag',
      paid_ads: 'flag',
      fast_conversion: 'off',
    },
    same_address_limit: 3,
    fast_conversion_seconds: 10,
    paid_ads_allowed: true,
  };
  const fraudOf = (settings: Record<string, unknown>) => ({
    fraud_rules: settings.fraud_rules,
    same_address_limit: settings.same_address_limit,
    fast_conversion_seconds: settings.fast_conversion_seconds,
    paid_ads_allowed: settings.paid_ads_allowed,
  });

  for (const type of ['affiliate', 'referral'] as const) {
    test(`${type}: GET shows the defaults; a PUT changes the rules it names and keeps the others`, async () => {
      const program = await server().newProgram(type);
      const read = async () =>
        fraudOf(
          (await server().request('GET', '/v1/program', { token: program.token })).body.data.program
            .program_settings,
        );
      assert.deepEqual(await read(), defaults);
      const put = await server().request('PUT', '/v1/program', {
        token: program.token,
        body: {
          program_settings: {
            fraud_rules: { paid_ads: 'block' },
            paid_ads_allowed: false,
            same_address_limit: 5,
          },
        },
      });
      assert.equal(put.status, 200);
      const second = await server().request('PUT', '/v1/program', {
        token: program.token,
        body: { program_settings: { fraud_rules: { fast_conversion: 'flag' }, fast_conversion_seconds: 30 } },
      });
      assert.equal(second.status, 200);
      assert.deepEqual(await read(), {
        fraud_rules: { ...defaults.fraud_rules, paid_ads: 'block', fast_conversion: 'flag' },
        same_address_limit: 5,
        fast_conversion_seconds: 30,
        paid_ads_allowed: false,
      });
    });
  }

  test('a newsletter program has the fraud settings too (its subscribers are checked)', async () => {
    const program = await server().newProgram('newsletter');
    const res = await server().request('PUT', '/v1/program', {
      token: program.token,
      body: { program_settings: { fraud_rules: { disposable_email: 'block' }, referral_pending_days: 7 } },
    });
    assert.equal(res.status, 200, res.text);
    const read = await server().request('GET', '/v1/program', { token: program.token });
    assert.equal(read.body.data.program.program_settings.fraud_rules.disposable_email, 'block');
    assert.equal(read.body.data.program.program_settings.referral_pending_days, 7);
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['an unknown rule', { fraud_rules: { same_ip: 'flag' } }, 'program_settings.fraud_rules.same_ip'],
    ['an unknown action', { fraud_rules: { paid_ads: 'warn' } }, 'program_settings.fraud_rules.paid_ads'],
    ['rules not an object', { fraud_rules: 'block' }, 'program_settings.fraud_rules'],
    ['a limit of 0', { same_address_limit: 0 }, 'program_settings.same_address_limit'],
    ['a limit too big', { same_address_limit: 1001 }, 'program_settings.same_address_limit'],
    ['a fractional limit', { same_address_limit: 2.5 }, 'program_settings.same_address_limit'],
    ['negative seconds', { fast_conversion_seconds: -1 }, 'program_settings.fast_conversion_seconds'],
    ['more than a day', { fast_conversion_seconds: 86_401 }, 'program_settings.fast_conversion_seconds'],
    ['paid ads as a string', { paid_ads_allowed: 'no' }, 'program_settings.paid_ads_allowed'],
  ];
  for (const [name, settings, field] of invalid) {
    test(`PUT /v1/program refuses ${name} with a 422 on ${field} and changes nothing`, async () => {
      const program = await server().newProgram('affiliate');
      const before = (await server().request('GET', '/v1/program', { token: program.token })).body;
      const res = await server().request('PUT', '/v1/program', {
        token: program.token,
        body: { program_settings: settings },
      });
      assert.equal(res.status, 422);
      assert.deepEqual(Object.keys(res.error.errors), [field]);
      const after = (await server().request('GET', '/v1/program', { token: program.token })).body;
      assert.deepEqual(after, before);
    });
  }
});
