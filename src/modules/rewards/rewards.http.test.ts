import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  listenToEvents,
  recordedEvents,
  type Schema,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

async function subscribe(server: TestServer, p: TestProgram<'newsletter'>, body: Record<string, unknown>) {
  const reply = await server.request('POST', '/v1/subscribers', { token: p.token, body });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.data;
}

async function newReward(server: TestServer, p: TestProgram<'newsletter'>, body: Record<string, unknown>) {
  const reply = await server.request('POST', '/v1/rewards', { token: p.token, body });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.data;
}

async function emailsTo(server: TestServer, p: TestProgram<'newsletter'>, recipient: string) {
  return server.deps.database.db
    .selectFrom('email_outbox')
    .select(['subject', 'text_body'])
    .where('program_id', '=', p.id)
    .where('recipient', '=', recipient)
    .execute();
}

describeEachDatabase('rewards API', (server) => {
  test('create (201), fetch, list without times_triggered, update flat and wrapped, delete', async () => {
    const p = await server().newProgram('newsletter');
    const created = await server().request('POST', '/v1/rewards', {
      token: p.token,
      body: {
        name: 'Sticker pack',
        description: 'Three stickers',
        subscribers_count: '3',
        fulfillment_type: 'generic_coupon',
        fulfillment_value: 'STICK-3',
      },
    });
    assert.equal(created.status, 201, created.text);
    const reward = created.body.data;
    assert.equal(typeof reward.id, 'number');
    assert.equal(reward.subscriber_count, 3);
    assert.equal(reward.fulfillment_type_name, 'Coupon code');
    assert.equal(reward.status, 'active');
    assert.equal(reward.type, 'default');
    assert.equal(reward.times_triggered, 0);

    const fetched = await server().request('GET', `/v1/rewards/${reward.id}`, { token: p.token });
    assert.deepEqual(fetched.body, { data: reward, status: 1 });
    const other = await newReward(server(), p, { name: 'Mug', subscribers_count: 10 });
    assert.equal(other.fulfillment_type, 'url_link');
    assert.equal(other.fulfillment_type_name, 'URL');

    const list = await server().request('GET', '/v1/rewards', { token: p.token });
    assert.equal(list.status, 200);
    assert.deepEqual(Object.keys(list.body).sort(), ['data', 'status']);
    assert.deepEqual(
      list.body.data.map((r: { id: number }) => r.id),
      [other.id, reward.id],
    );
    assert.equal('times_triggered' in itemAt(list.body.data), false);
    const one = await server().request('GET', '/v1/rewards?limit=1', { token: p.token });
    assert.equal(one.body.data.length, 1);

    let put = await server().request('PUT', '/v1/rewards', {
      token: p.token,
      body: { id: reward.id, name: 'Big sticker pack', fulfillment_type: 'retailer_gift_card' },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.data.name, 'Big sticker pack');
    assert.equal(put.body.data.fulfillment_type_name, 'Gift card');
    put = await server().request('PUT', '/v1/rewards', {
      token: p.token,
      body: { id: String(reward.id), update: { subscribers_count: 4 } },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.data.subscriber_count, 4);

    const deleted = await server().request('DELETE', '/v1/rewards', {
      token: p.token,
      body: { id: reward.id },
    });
    assert.deepEqual(deleted.body, { status: 1 });
    assert.equal((await server().request('GET', `/v1/rewards/${reward.id}`, { token: p.token })).status, 404);
    const overview = await server().request('GET', '/v1/program', { token: p.token });
    assert.equal(overview.body.data.active_rewards, 1);
  });

  test('bad input: subscribers_count zero, negative, fractional or not a number → 422; unknown id → 404', async () => {
    const p = await server().newProgram('newsletter');
    for (const count of [0, -1, '0', '-3', 'abc', 1.5, '', null, true]) {
      const reply = await server().request('POST', '/v1/rewards', {
        token: p.token,
        body: { name: 'X', subscribers_count: count },
      });
      assert.equal(reply.status, 422, `${JSON.stringify(count)}: ${reply.text}`);
      assert.ok(reply.error.errors.subscribers_count, `${JSON.stringify(count)}: ${reply.text}`);
    }
    const noName = await server().request('POST', '/v1/rewards', {
      token: p.token,
      body: { subscribers_count: 1 },
    });
    assert.deepEqual(noName.error.errors, { name: ['The name field is required.'] });
    const badType = await server().request('POST', '/v1/rewards', {
      token: p.token,
      body: { name: 'X', subscribers_count: 1, fulfillment_type: 'cash' },
    });
    assert.equal(badType.status, 422);
    assert.ok(badType.error.errors.fulfillment_type);
    const list = await server().request('GET', '/v1/rewards', { token: p.token });
    assert.deepEqual(list.body.data, []);

    const reward = await newReward(server(), p, { name: 'X', subscribers_count: 2 });
    const badUpdate = await server().request('PUT', '/v1/rewards', {
      token: p.token,
      body: { id: reward.id, update: { subscribers_count: 0 } },
    });
    assert.equal(badUpdate.status, 422);
    assert.ok(badUpdate.error.errors['update.subscribers_count']);

    for (const id of [999999, 'abc']) {
      assert.equal((await server().request('GET', `/v1/rewards/${id}`, { token: p.token })).status, 404);
      const put = await server().request('PUT', '/v1/rewards', { token: p.token, body: { id, name: 'Y' } });
      assert.equal(put.status, id === 'abc' ? 422 : 404, put.text);
    }
    const del = await server().request('DELETE', '/v1/rewards', { token: p.token, body: { id: 999999 } });
    assert.equal(del.status, 404);
    const q = await server().newProgram('newsletter');
    assert.equal((await server().request('GET', `/v1/rewards/${reward.id}`, { token: q.token })).status, 404);
    const foreignDelete = await server().request('DELETE', '/v1/rewards', {
      token: q.token,
      body: { id: reward.id },
    });
    assert.equal(foreignDelete.status, 404);
  });

  test('reaching a threshold unlocks the reward once: reward array, times_triggered, e-mail, event', async () => {
    const p = await server().newProgram('newsletter');
    await listenToEvents(server(), p);
    const reward = await newReward(server(), p, {
      name: 'Ebook',
      subscribers_count: 2,
      fulfillment_value: 'https://example.com/ebook',
    });
    const referrer = await subscribe(server(), p, { email: 'r@example.com', name: 'Rita' });
    const a = await subscribe(server(), p, { email: 'a@example.com', referral: { id: referrer.id } });
    let fetched = (await server().request('GET', `/v1/subscribers/${referrer.id}`, { token: p.token })).body
      .data;
    assert.deepEqual(fetched.reward, []);
    await subscribe(server(), p, { email: 'b@example.com', referral: { id: referrer.id } });
    fetched = (await server().request('GET', `/v1/subscribers/${referrer.id}`, { token: p.token })).body.data;
    assert.equal(fetched.referrals_count, 2);
    assert.equal(fetched.reward.length, 1);
    assert.equal(fetched.reward[0]?.id, reward.id);
    assert.equal(fetched.reward[0]?.fulfillment_value, 'https://example.com/ebook');
    assert.ok(fetched.reward[0]?.unlocked_at);

    // Dropping below and coming back does not unlock again; the reward stays unlocked.
    await server().request('PUT', `/v1/subscribers/${a.id}`, {
      token: p.token,
      body: { status: 'rejected' },
    });
    fetched = (await server().request('GET', `/v1/subscribers/${referrer.id}`, { token: p.token })).body.data;
    assert.equal(fetched.referrals_count, 1);
    assert.equal(fetched.reward.length, 1);
    await server().request('PUT', `/v1/subscribers/${a.id}`, { token: p.token, body: { status: 'active' } });
    await subscribe(server(), p, { email: 'c@example.com', referral: { id: referrer.id } });

    const stored = (await server().request('GET', `/v1/rewards/${reward.id}`, { token: p.token })).body.data;
    assert.equal(stored.times_triggered, 1);
    const emails = await emailsTo(server(), p, 'r@example.com');
    assert.equal(emails.length, 1);
    assert.match(itemAt(emails).subject, /Ebook/);
    assert.match(itemAt(emails).text_body, /https:\/\/example\.com\/ebook/);
    const rewarded = (await recordedEvents(server(), p)).filter((e) => e.event === 'subscriber.rewarded');
    assert.equal(rewarded.length, 1);
    assert.equal(itemAt(rewarded).payload.email, 'r@example.com');
    // The event's payload is the subscriber record.
    const payload = itemAt(rewarded).payload as Schema<'Subscriber'>;
    assert.equal(itemAt(payload.reward).id, reward.id);
  });

  test('lowering a threshold (or creating one already reached) unlocks it for subscribers past it', async () => {
    const p = await server().newProgram('newsletter');
    const reward = await newReward(server(), p, { name: 'Tote', subscribers_count: 5 });
    const referrer = await subscribe(server(), p, { email: 'r@example.com' });
    const quiet = await subscribe(server(), p, { email: 'q@example.com' });
    for (const n of [1, 2, 3])
      await subscribe(server(), p, { email: `f${n}@example.com`, referral: { id: referrer.id } });
    await subscribe(server(), p, { email: 'g@example.com', referral: { id: quiet.id } });
    const rewardsOf = async (id: string | null) =>
      (await server().request('GET', `/v1/subscribers/${id}`, { token: p.token })).body.data.reward.map(
        (r: { id: number }) => r.id,
      );
    assert.deepEqual(await rewardsOf(referrer.id), []);
    const lowered = await server().request('PUT', '/v1/rewards', {
      token: p.token,
      body: { id: reward.id, subscribers_count: 3 },
    });
    assert.equal(lowered.status, 200, lowered.text);
    assert.equal(lowered.body.data.times_triggered, 1);
    assert.deepEqual(await rewardsOf(referrer.id), [reward.id]);
    assert.deepEqual(await rewardsOf(quiet.id), []);
    // Raising it again takes nothing back.
    await server().request('PUT', '/v1/rewards', {
      token: p.token,
      body: { id: reward.id, subscribers_count: 9 },
    });
    assert.deepEqual(await rewardsOf(referrer.id), [reward.id]);

    const easy = await newReward(server(), p, { name: 'Badge', subscribers_count: 1 });
    assert.equal(easy.times_triggered, 2);
    assert.deepEqual((await rewardsOf(quiet.id)).sort(), [easy.id]);
    assert.equal((await emailsTo(server(), p, 'q@example.com')).length, 1);
  });

  test('concurrent referrals unlock a milestone exactly once', async () => {
    const p = await server().newProgram('newsletter');
    await listenToEvents(server(), p);
    const low = await newReward(server(), p, { name: 'Low', subscribers_count: 3 });
    const high = await newReward(server(), p, { name: 'High', subscribers_count: 8 });
    const referrer = await subscribe(server(), p, { email: 'r@example.com' });
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        server().request('POST', '/v1/subscribers', {
          token: p.token,
          body: { email: `c${i}@example.com`, referral: { id: referrer.id } },
        }),
      ),
    );
    for (const reply of replies) assert.equal(reply.status, 201, reply.text);
    const fetched = (await server().request('GET', `/v1/subscribers/${referrer.id}`, { token: p.token })).body
      .data;
    assert.equal(fetched.referrals_count, 12);
    assert.deepEqual(fetched.reward.map((r: { id: number }) => r.id).sort(), [low.id, high.id].sort());
    for (const reward of [low, high]) {
      const stored = (await server().request('GET', `/v1/rewards/${reward.id}`, { token: p.token })).body
        .data;
      assert.equal(stored.times_triggered, 1, reward.name);
    }
    assert.equal((await emailsTo(server(), p, 'r@example.com')).length, 2);
    const rewarded = (await recordedEvents(server(), p)).filter((e) => e.event === 'subscriber.rewarded');
    assert.equal(rewarded.length, 2);
  });

  test('webhooks of newsletter programs offer the subscriber events', async () => {
    const p = await server().newProgram('newsletter');
    const reply = await server().request('POST', '/v1/webhooks', {
      token: p.token,
      body: {
        name: 'All',
        url: 'https://hooks.example.com/x',
        events: ['subscriber.created', 'subscriber.updated', 'subscriber.deleted', 'subscriber.rewarded'],
      },
    });
    assert.equal(reply.status, 200, reply.text);
  });
});
