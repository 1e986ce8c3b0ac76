import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../../../test/harness.ts';
import { seedNewsletter } from './seed-newsletter.ts';

describeEachDatabase('vouch seed --subscribers', (server) => {
  test('seeded subscribers carry their referral counts and program figures, and the API keeps working', async () => {
    const result = await seedNewsletter(server().deps, { subscribers: 35 });
    assert.ok('api_key' in result, 'a new program comes with its first key');
    const token = result.api_key.token;
    const prefix = result.seeded.key_prefix;
    const get = <const P extends string>(path: P) => server().request('GET', path, { token });
    const root = await get(`/v1/subscribers/${prefix}S0`);
    assert.equal(root.status, 200, root.text);
    assert.equal(root.body.data.referrals_count, 10);
    const third = await get(`/v1/subscribers/${prefix.toLowerCase()}.s3@subscribers.example`);
    assert.equal(third.body.data.referrals_count, 4);
    assert.equal((await get(`/v1/subscribers/${prefix}S4`)).body.data.referrals_count, 0);
    const overview = (await get('/v1/program')).body.data;
    // Signups spread over 60 days: the overview's window and the one before share them.
    const figures = new Map(Object.entries(overview));
    const both = (name: string) => Number(figures.get(name)) + Number(figures.get(`${name}_before`));
    assert.equal(both('total_customers'), 35);
    assert.equal(both('total_referred_customers'), 34);
    assert.equal(both('total_referring_customers'), 4);
    const created = await server().request('POST', '/v1/subscribers', {
      token,
      body: { email: 'new@example.com', referral: { id: `${prefix}S3` } },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal((await get(`/v1/subscribers/${prefix}S3`)).body.data.referrals_count, 5);
    const notReferred = await get('/v1/subscribers?refer_status=non_referred');
    assert.equal(notReferred.body.data.length, 1);
    // Seeding again into the same program adds to it.
    await seedNewsletter(server().deps, { programId: result.program.id, subscribers: 5 });
    const after = (await get('/v1/program')).body.data;
    assert.equal(after.total_customers + after.total_customers_before, 41);
  });

  test('--program must name a newsletter program', async () => {
    const affiliate = await server().newProgram('affiliate');
    await assert.rejects(
      seedNewsletter(server().deps, { programId: affiliate.id, subscribers: 1 }),
      /newsletter/,
    );
  });
});
