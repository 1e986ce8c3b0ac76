import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AnswerOf, describeEachDatabase } from '../../../test/harness.ts';

/** Contract §4.21: `message` and the synchronization fields sit beside `data`, never inside it. */
const topLevel = (message: string) => ({
  status: 1,
  message,
  synchronization_enabled: false,
  synchronization_successful: false,
  synchronization_message: '',
});

const answerKeys = [
  'data',
  'message',
  'status',
  'synchronization_enabled',
  'synchronization_message',
  'synchronization_successful',
];

function assertSynchronized(body: Record<string, unknown>, message: string) {
  assert.deepEqual(Object.keys(body).sort(), answerKeys);
  const { data: _data, ...rest } = body;
  assert.deepEqual(rest, topLevel(message));
}

function assertRecordOnly(data: Record<string, unknown>) {
  for (const key of [
    'message',
    'synchronization_enabled',
    'synchronization_successful',
    'synchronization_message',
  ])
    assert.equal(key in data, false, `data carries ${key}`);
}

describeEachDatabase('coupon and promotion-code answers', (server) => {
  test('coupon create, update and delete answer message and synchronization at the top level', async () => {
    const p = await server().newProgram('affiliate');
    const body = {
      uuid_code: 'top',
      coupon_discount_type: 'percent',
      coupon_discount_amount: 10,
      coupon_duration_type: 'once',
    };
    const created = await server().request('POST', '/v1/coupons', { token: p.token, body });
    assert.equal(created.status, 200, created.text);
    assertSynchronized(created.body, 'Coupon created in the app successfully.');
    assertRecordOnly(created.body.data);
    assert.equal(created.body.data.uuid_code, 'top');

    const replayed = await server().request('POST', '/v1/coupons', { token: p.token, body });
    assertSynchronized(replayed.body, 'Coupon created in the app successfully.');

    for (const [path, update] of [
      ['/v1/coupons/top', { name: 'By path' }],
      ['/v1/coupons', { uuid_code: 'top', name: 'By body' }],
    ] as const) {
      const updated = await server().request<AnswerOf<'PUT', '/v1/coupons/{uuid_code}'>>('PUT', path, {
        token: p.token,
        body: update,
      });
      assert.equal(updated.status, 200, updated.text);
      assertSynchronized(updated.body, 'Coupon updated in the app successfully.');
      assertRecordOnly(updated.body.data);
      assert.equal(updated.body.data.name, update.name);
    }

    const deleted = await server().request('DELETE', '/v1/coupons/top', { token: p.token });
    assert.equal(deleted.status, 200, deleted.text);
    assertSynchronized(deleted.body, 'Coupon deleted in the app successfully.');
    assert.deepEqual(deleted.body.data, { uuid_code: 'top' });
  });

  test('promotion-code create, update, redeem and delete answer the same way', async () => {
    const p = await server().newProgram('referral');
    await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: {
        uuid_code: 'c',
        coupon_discount_type: 'percent',
        coupon_discount_amount: 5,
        coupon_duration_type: 'once',
      },
    });
    const created = await server().request('POST', '/v1/promotion-codes', {
      token: p.token,
      body: { coupon_uuid: 'c', code: 'TOP5' },
    });
    assert.equal(created.status, 200, created.text);
    assertSynchronized(created.body, 'Promotion code created in the app successfully.');
    assertRecordOnly(created.body.data);
    assert.equal(created.body.data.code, 'TOP5');

    const updated = await server().request('PUT', '/v1/promotion-codes/TOP5', {
      token: p.token,
      body: { update: { metadata: { a: '1' } } },
    });
    assert.equal(updated.status, 200, updated.text);
    assertSynchronized(updated.body, 'Promotion code updated in the app successfully.');
    assertRecordOnly(updated.body.data);
    assert.deepEqual(updated.body.data.metadata, { a: '1' });

    const redeemed = await server().request('PUT', '/v1/promotion-codes', {
      token: p.token,
      body: { code: 'TOP5', redeem: true },
    });
    assert.equal(redeemed.status, 200, redeemed.text);
    assertSynchronized(redeemed.body, 'Promotion code redeemed successfully.');
    assertRecordOnly(redeemed.body.data);

    const deleted = await server().request('DELETE', '/v1/promotion-codes/TOP5', { token: p.token });
    assert.equal(deleted.status, 200, deleted.text);
    assertSynchronized(deleted.body, 'Promotion code deleted in the app successfully.');
    assert.deepEqual(deleted.body.data, {
      status: 1,
      message: 'Promotion code deleted in the app successfully.',
    });
  });
});
