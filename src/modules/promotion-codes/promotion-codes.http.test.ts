import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  ManualClock,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

const clock = new ManualClock();

async function newCoupon(server: TestServer, p: TestProgram, overrides: Record<string, unknown> = {}) {
  const reply = await server.request('POST', '/v1/coupons', {
    token: p.token,
    body: {
      coupon_discount_type: 'percent',
      coupon_discount_amount: 20,
      coupon_duration_type: 'once',
      ...overrides,
    },
  });
  assert.equal(reply.status, 200, reply.text);
  return reply.body.data;
}

async function newCode(server: TestServer, p: TestProgram, body: Record<string, unknown>) {
  const reply = await server.request('POST', '/v1/promotion-codes', { token: p.token, body });
  assert.equal(reply.status, 200, reply.text);
  return reply.body.data;
}

const redeem = (server: TestServer, p: TestProgram, code: string, transactionKey?: string) =>
  server.request('PUT', '/v1/promotion-codes', {
    token: p.token,
    body: { code, redeem: true, ...(transactionKey ? { transaction_key: transactionKey } : {}) },
  });

describeEachDatabase(
  'promotion codes API',
  (server) => {
    test('create on both paths, by coupon_uuid or coupon_id; fetch shows the coupon; list', async () => {
      const p = await server().newProgram('affiliate');
      const coupon = await newCoupon(server(), p, { uuid_code: 'spring' });
      const created = await newCode(server(), p, {
        coupon_uuid: 'spring',
        code: 'SPRING10',
        first_time_order: true,
        minimum_order_status: 'on',
        minimum_order_value: 30,
        expiration_date_status: true,
        expiration_date_value: '2026-12-31',
        redemption_times_status: 'on',
        redemption_times_value: 5,
        metadata: { channel: 'email' },
      });
      assert.equal(created.code, 'SPRING10');
      assert.equal(created.coupon_uuid, 'spring');
      assert.equal(created.first_time_order, true);
      assert.equal(created.minimum_order_status, true);
      assert.equal(created.minimum_order_value, 30);
      assert.equal(created.expiration_date_value, '2026-12-31');
      assert.equal(created.redemption_times_value, 5);
      assert.equal(created.times_redeemed, 0);
      assert.deepEqual(created.additional_info, { redemptions: [] });
      assert.deepEqual(created.metadata, { channel: 'email' });
      assert.equal('message' in created, false);

      const singular = await server().request('POST', '/v1/promotion-code', {
        token: p.token,
        body: { coupon_id: coupon.id },
      });
      assert.equal(singular.status, 200, singular.text);
      assert.match(singular.body.data.code, /^[A-Z0-9]{10}$/);
      assert.deepEqual(singular.body.data.metadata, {});

      const fetched = await server().request('GET', '/v1/promotion-codes/spring10', { token: p.token });
      assert.equal(fetched.status, 200, fetched.text);
      assert.equal(fetched.body.data.code, 'SPRING10');
      assert.equal(fetched.body.data.coupon.uuid_code, 'spring');
      assert.equal(fetched.body.data.coupon.coupon_discount_amount, 20);

      const list = await server().request('GET', '/v1/promotion-codes', { token: p.token });
      assert.deepEqual(
        list.body.data.map((c: { code: string }) => c.code),
        [singular.body.data.code, 'SPRING10'],
      );
      assert.equal('coupon' in itemAt(list.body.data), false);
      const ofCoupon = await server().request('GET', '/v1/promotion-codes?coupon_uuid=nope', {
        token: p.token,
      });
      assert.deepEqual(ofCoupon.body.data, []);
      const couponView = await server().request('GET', '/v1/coupons/spring', { token: p.token });
      assert.equal(couponView.body.data.promotion_codes.length, 2);
    });

    test('create is insert-or-replay on the code: the same request answers the stored code, another is taken', async () => {
      const p = await server().newProgram('affiliate');
      await newCoupon(server(), p, { uuid_code: 'rc' });
      await newCoupon(server(), p, { uuid_code: 'rc2', promotion_codes: [{ code: 'INNER' }] });
      const body = { coupon_uuid: 'rc', code: 'Again', first_time_order: true, metadata: { a: 1 } };
      const first = await server().request('POST', '/v1/promotion-codes', { token: p.token, body });
      assert.equal(first.status, 200, first.text);
      const again = await server().request('POST', '/v1/promotion-code', {
        token: p.token,
        body: { metadata: { a: 1 }, first_time_order: true, code: 'Again', coupon_uuid: 'rc' },
      });
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body, first.body);
      for (const other of [
        { ...body, first_time_order: false },
        { ...body, coupon_uuid: 'rc2' },
        { ...body, code: 'AGAIN' },
        // A code made inside a coupon's create is replayed by that create only.
        { coupon_uuid: 'rc2', code: 'INNER' },
      ]) {
        const reply = await server().request('POST', '/v1/promotion-codes', { token: p.token, body: other });
        assert.equal(reply.status, 422, reply.text);
        assert.deepEqual(reply.error.errors, { code: ['The code has already been taken.'] });
      }
      // A retry after redemptions answers the code as it is now.
      assert.equal((await redeem(server(), p, 'AGAIN', 'o-1')).status, 200);
      const later = await server().request('POST', '/v1/promotion-codes', { token: p.token, body });
      assert.equal(later.status, 200);
      assert.equal(later.body.data.times_redeemed, 1);
      const list = await server().request('GET', '/v1/promotion-codes?coupon_uuid=rc', { token: p.token });
      assert.equal(list.body.data.length, 1);
    });

    test('20 concurrent identical code creates: one code, every answer the same', async () => {
      const p = await server().newProgram('referral');
      await newCoupon(server(), p, { uuid_code: 'burst' });
      const body = {
        coupon_uuid: 'burst',
        code: 'BURST',
        redemption_times_status: true,
        redemption_times_value: 3,
      };
      const replies = await Promise.all(
        Array.from({ length: 20 }, () =>
          server().request('POST', '/v1/promotion-codes', { token: p.token, body }),
        ),
      );
      assert.deepEqual(
        replies.map((r) => r.status),
        Array(20).fill(200),
        replies.map((r) => r.text).join('\n'),
      );
      for (const reply of replies) assert.deepEqual(reply.body, itemAt(replies).body);
      const coupon = await server().request('GET', '/v1/coupons/burst', { token: p.token });
      assert.deepEqual(
        coupon.body.data.promotion_codes.map((c: { code: string }) => c.code),
        ['BURST'],
      );
    });

    test('create refusals name their field', async () => {
      const p = await server().newProgram('affiliate');
      await newCoupon(server(), p, { uuid_code: 'cc' });
      await newCode(server(), p, { coupon_uuid: 'cc', code: 'TAKEN' });
      const cases: [Record<string, unknown>, string, string][] = [
        [{}, 'coupon_uuid', 'The coupon uuid field is required.'],
        [{ coupon_uuid: 'nope' }, 'coupon_uuid', 'The selected coupon uuid is invalid.'],
        [{ coupon_id: 99999999 }, 'coupon_id', 'The selected coupon id is invalid.'],
        [{ coupon_uuid: 'cc', code: 'taken' }, 'code', 'The code has already been taken.'],
        [{ coupon_uuid: 'cc', code: 'bad code!' }, 'code', 'The code field format is invalid.'],
        [
          { coupon_uuid: 'cc', limit_to_specific_partner: true },
          'coupon_specific_partners',
          'The coupon specific partners field is required when limit to specific partner is on.',
        ],
        [
          { coupon_uuid: 'cc', limit_to_specific_partner: true, coupon_specific_partners: [{ id: 'ghost' }] },
          'coupon_specific_partners.0.id',
          'The selected coupon specific partners.0.id is invalid.',
        ],
        [
          {
            coupon_uuid: 'cc',
            limit_to_specific_customer: 'on',
            coupon_specific_customers: [{ id: 'ghost' }],
          },
          'coupon_specific_customers.0.id',
          'The selected coupon specific customers.0.id is invalid.',
        ],
        [
          { coupon_uuid: 'cc', minimum_order_status: 'on' },
          'minimum_order_value',
          'The minimum order value field is required when minimum order status is on.',
        ],
        [
          { coupon_uuid: 'cc', expiration_date_status: 'on' },
          'expiration_date_value',
          'The expiration date value field is required when expiration date status is on.',
        ],
        [
          { coupon_uuid: 'cc', redemption_times_status: true },
          'redemption_times_value',
          'The redemption times value field is required when redemption times status is on.',
        ],
        [
          { coupon_uuid: 'cc', redemption_times_value: -1 },
          'redemption_times_value',
          'The redemption times value field must be between 1 and 1000000000.',
        ],
        [
          { coupon_uuid: 'cc', expiration_date_value: 'tomorrow' },
          'expiration_date_value',
          'The expiration date value field must match the format Y-m-d.',
        ],
      ];
      cases.push(
        [
          { coupon_uuid: 'cc', coupon_specific_partners: Array.from({ length: 101 }, () => ({ id: 'x' })) },
          'coupon_specific_partners',
          'The coupon specific partners field must not have more than 100 items.',
        ],
        [
          { coupon_uuid: 'cc', first_time_order: 'yes' },
          'first_time_order',
          'The first time order field must be true or false.',
        ],
        [
          { coupon_uuid: 'cc', minimum_order_value: 1.5 },
          'minimum_order_value',
          'The minimum order value field must be an integer.',
        ],
        [{ coupon_uuid: 'cc', metadata: ['a'] }, 'metadata', 'The metadata field must be an array.'],
        [{ coupon_uuid: 'cc', code: 'c'.repeat(256) }, 'code', 'The code field format is invalid.'],
      );
      for (const [body, field, message] of cases) {
        const reply = await server().request('POST', '/v1/promotion-codes', { token: p.token, body });
        assert.equal(reply.status, 422, `${JSON.stringify(body)}: ${reply.text}`);
        assert.deepEqual(reply.error.errors[field], [message], reply.text);
      }
      const list = await server().request('GET', '/v1/promotion-codes', { token: p.token });
      assert.equal(list.body.data.length, 1, 'nothing else was written');
    });

    test("limits name partners and customers of the program only (another program's are unknown)", async () => {
      const p = await server().newProgram('affiliate');
      const q = await server().newProgram('affiliate');
      const partner = await server().request('POST', '/v1/partners', {
        token: p.token,
        body: { email: 'ann@example.com', name: 'Ann', surname: 'Lee', key: 'ann' },
      });
      await server().request('POST', '/v1/customers', {
        token: p.token,
        body: { key: 'buyer1', partner: { key: 'ann' } },
      });
      await newCoupon(server(), p, { uuid_code: 'lim' });
      await newCoupon(server(), q, { uuid_code: 'lim' });
      const limited = await newCode(server(), p, {
        coupon_uuid: 'lim',
        code: 'ANN',
        limit_to_specific_partner: true,
        coupon_specific_partners: [{ id: partner.body.data.id }],
        limit_to_specific_customer: true,
        coupon_specific_customers: [{ id: 'buyer1', customer_full_name: 'Buyer One' }],
      });
      assert.deepEqual(limited.coupon_specific_partners, [
        { id: partner.body.data.id, full_name: 'Ann Lee' },
      ]);
      assert.deepEqual(limited.coupon_specific_customers, [
        { id: 'buyer1', customer_full_name: 'Buyer One' },
      ]);
      const foreign = await server().request('POST', '/v1/promotion-codes', {
        token: q.token,
        body: {
          coupon_uuid: 'lim',
          limit_to_specific_partner: true,
          coupon_specific_partners: [{ id: partner.body.data.id }],
          coupon_specific_customers: [{ id: 'buyer1' }],
        },
      });
      assert.equal(foreign.status, 422);
      assert.deepEqual(Object.keys(foreign.error.errors).sort(), [
        'coupon_specific_customers.0.id',
        'coupon_specific_partners.0.id',
      ]);
      const referral = await server().newProgram('referral');
      await newCoupon(server(), referral, { uuid_code: 'r' });
      const noPartners = await server().request('POST', '/v1/promotion-codes', {
        token: referral.token,
        body: { coupon_uuid: 'r', limit_to_specific_partner: true, coupon_specific_partners: [{ id: 'x' }] },
      });
      assert.equal(noPartners.status, 422);
      assert.ok(noPartners.error.errors.limit_to_specific_partner, noPartners.text);
    });

    test("update in the body or path form; another program's code is not found", async () => {
      const p = await server().newProgram('referral');
      const q = await server().newProgram('referral');
      await newCoupon(server(), p, { uuid_code: 'u' });
      await newCode(server(), p, { coupon_uuid: 'u', code: 'UPD', metadata: { a: '1' } });
      const byBody = await server().request('PUT', '/v1/promotion-codes', {
        token: p.token,
        body: { code: 'upd', metadata: { b: '2' }, redemption_times_status: 'on', redemption_times_value: 3 },
      });
      assert.equal(byBody.status, 200, byBody.text);
      assert.deepEqual(byBody.body.data.metadata, { a: '1', b: '2' });
      assert.equal(byBody.body.data.redemption_times_value, 3);
      assert.equal(byBody.body.message, 'Promotion code updated in the app successfully.');
      const byPath = await server().request('PUT', '/v1/promotion-codes/UPD', {
        token: p.token,
        body: { update: { redemption_times_status: 'off', metadata: { a: null } } },
      });
      assert.equal(byPath.status, 200, byPath.text);
      assert.equal(byPath.body.data.redemption_times_status, false);
      assert.deepEqual(byPath.body.data.metadata, { b: '2' });
      const invalid = await server().request('PUT', '/v1/promotion-codes/UPD', {
        token: p.token,
        body: { expiration_date_status: true },
      });
      assert.equal(invalid.status, 422);
      const badRedeem = await server().request('PUT', '/v1/promotion-codes', {
        token: p.token,
        body: { code: 'UPD', redeem: 'yes', transaction_key: 'k'.repeat(256) },
      });
      assert.equal(badRedeem.status, 422);
      assert.deepEqual(Object.keys(badRedeem.error.errors).sort(), ['redeem', 'transaction_key']);
      const noCode = await server().request('PUT', '/v1/promotion-codes', {
        token: p.token,
        body: { redeem: true },
      });
      assert.deepEqual(noCode.error.errors, { code: ['The code field is required.'] });
      for (const [method, path, body] of [
        ['GET', '/v1/promotion-codes/UPD', undefined],
        ['PUT', '/v1/promotion-codes/UPD', { metadata: { x: '1' } }],
        ['PUT', '/v1/promotion-codes', { code: 'UPD', redeem: true }],
        ['DELETE', '/v1/promotion-codes', { code: 'UPD', coupon: { uuid_code: 'u' } }],
      ] as const) {
        const reply = await server().request(method, path, { token: q.token, body });
        assert.equal(reply.status, 404, `${method} ${path}: ${reply.text}`);
        assert.equal(reply.error.status, 0);
      }
    });

    test('delete: data.status and data.message; unknown → Promotion code not found', async () => {
      const p = await server().newProgram('newsletter');
      await newCoupon(server(), p, { uuid_code: 'd' });
      await newCoupon(server(), p, { uuid_code: 'other' });
      await newCode(server(), p, { coupon_uuid: 'd', code: 'DEL' });
      await newCode(server(), p, { coupon_uuid: 'd', code: 'DEL2' });
      const wrongCoupon = await server().request('DELETE', '/v1/promotion-codes', {
        token: p.token,
        body: { code: 'DEL', coupon: { uuid_code: 'other' } },
      });
      assert.equal(wrongCoupon.status, 404);
      const missingCoupon = await server().request('DELETE', '/v1/promotion-codes', {
        token: p.token,
        body: { code: 'DEL' },
      });
      assert.equal(missingCoupon.status, 422);
      assert.deepEqual(Object.keys(missingCoupon.error.errors), ['coupon']);
      const deleted = await server().request('DELETE', '/v1/promotion-codes', {
        token: p.token,
        body: { code: 'DEL', coupon: { uuid_code: 'd' } },
      });
      assert.equal(deleted.status, 200, deleted.text);
      const message = 'Promotion code deleted in the app successfully.';
      assert.deepEqual(deleted.body, {
        data: { status: 1, message },
        status: 1,
        message,
        synchronization_enabled: false,
        synchronization_successful: false,
        synchronization_message: '',
      });
      const again = await server().request('DELETE', '/v1/promotion-codes', {
        token: p.token,
        body: { code: 'DEL', coupon: { uuid_code: 'd' } },
      });
      assert.equal(again.status, 404);
      assert.deepEqual(again.body, {
        message: 'Promotion code not found',
        errors: {},
        data: { status: 0, message: 'Promotion code not found' },
        status: 0,
      });
      const byPath = await server().request('DELETE', '/v1/promotion-codes/del2', { token: p.token });
      assert.equal(byPath.status, 200, byPath.text);
      assert.equal(
        (await server().request('GET', '/v1/promotion-codes/DEL2', { token: p.token })).status,
        404,
      );
    });

    test('redeem: times_redeemed, redemptions, and the same transaction_key answers the code unchanged', async () => {
      const p = await server().newProgram('affiliate');
      await newCoupon(server(), p, { uuid_code: 'r' });
      await newCode(server(), p, { coupon_uuid: 'r', code: 'RED' });
      const first = await redeem(server(), p, 'red', 'order-1');
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.data.times_redeemed, 1);
      assert.deepEqual(first.body.data.additional_info.redemptions, [
        {
          redeemed_at: itemAt(first.body.data.additional_info.redemptions).redeemed_at,
          transaction_key: 'order-1',
        },
      ]);
      const replay = await redeem(server(), p, 'RED', 'order-1');
      assert.equal(replay.status, 200);
      assert.equal(replay.body.data.times_redeemed, 1);
      const second = await redeem(server(), p, 'RED');
      assert.equal(second.body.data.times_redeemed, 2);
      assert.equal(second.body.data.additional_info.redemptions[1]?.transaction_key, null);
      const coupon = await server().request('GET', '/v1/coupons/r', { token: p.token });
      assert.equal(coupon.body.data.times_redeemed, 2);
      const unknown = await redeem(server(), p, 'NOPE');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.error.message, 'Promotion code not found');
    });

    test('redeem refusals: inactive, deleted, dates passed, limits of the code and of the coupon', async () => {
      clock.set('2026-03-10T12:00:00Z');
      const p = await server().newProgram('affiliate');
      const refusal = async (code: string, message: string) => {
        const reply = await redeem(server(), p, code);
        assert.equal(reply.status, 422, `${code}: ${reply.text}`);
        assert.deepEqual(reply.error.errors, { code: [message] });
      };
      await newCoupon(server(), p, { uuid_code: 'off', active: false });
      await newCode(server(), p, { coupon_uuid: 'off', code: 'OFF' });
      await refusal('OFF', 'The coupon of this promotion code is not active.');
      await server().request('PUT', '/v1/coupons/off', { token: p.token, body: { active: true } });
      assert.equal((await redeem(server(), p, 'OFF')).status, 200, 'active takes effect at once');

      await newCoupon(server(), p, {
        uuid_code: 'old',
        redemption_specific_date_status: true,
        redemption_specific_date_value: '2026-03-09',
      });
      await newCode(server(), p, { coupon_uuid: 'old', code: 'OLD' });
      await refusal('OLD', 'The coupon of this promotion code expired on 2026-03-09.');

      await newCoupon(server(), p, { uuid_code: 'fresh' });
      await newCode(server(), p, {
        coupon_uuid: 'fresh',
        code: 'EXP',
        expiration_date_status: 'on',
        expiration_date_value: '2026-03-09',
      });
      await newCode(server(), p, {
        coupon_uuid: 'fresh',
        code: 'TODAY',
        expiration_date_status: 'on',
        expiration_date_value: '2026-03-10',
      });
      await refusal('EXP', 'The promotion code expired on 2026-03-09.');
      assert.equal((await redeem(server(), p, 'TODAY')).status, 200, 'the last day counts');

      await newCode(server(), p, {
        coupon_uuid: 'fresh',
        code: 'ONCE',
        redemption_times_status: true,
        redemption_times_value: 1,
      });
      assert.equal((await redeem(server(), p, 'ONCE')).status, 200);
      await refusal('ONCE', 'The promotion code has reached its redemption limit of 1.');

      await newCoupon(server(), p, {
        uuid_code: 'two',
        redemption_times_status: 'on',
        redemption_times_value: 2,
      });
      await newCode(server(), p, { coupon_uuid: 'two', code: 'T1' });
      await newCode(server(), p, { coupon_uuid: 'two', code: 'T2' });
      assert.equal((await redeem(server(), p, 'T1')).status, 200);
      assert.equal((await redeem(server(), p, 'T2')).status, 200);
      await refusal('T1', 'The coupon of this promotion code has reached its redemption limit of 2.');
      const t1 = await server().request('GET', '/v1/promotion-codes/T1', { token: p.token });
      assert.equal(t1.body.data.times_redeemed, 1, 'a refused redemption writes nothing');

      await newCoupon(server(), p, { uuid_code: 'bye' });
      await newCode(server(), p, { coupon_uuid: 'bye', code: 'BYE' });
      await server().request('DELETE', '/v1/coupons/bye', { token: p.token });
      await refusal('BYE', 'The coupon of this promotion code has been deleted.');
      const kept = await server().request('GET', '/v1/promotion-codes/BYE', { token: p.token });
      assert.equal(kept.status, 200);
      assert.notEqual(kept.body.data.coupon.deleted_at, null);
    });

    test('a key that redeemed the code replays after its limit is reached; the answer shows the latest 25', async () => {
      const p = await server().newProgram('affiliate');
      await newCoupon(server(), p, { uuid_code: 'lim1' });
      await newCode(server(), p, {
        coupon_uuid: 'lim1',
        code: 'ONCE1',
        redemption_times_status: 'on',
        redemption_times_value: 1,
      });
      assert.equal((await redeem(server(), p, 'ONCE1', 'a')).status, 200);
      const retry = await redeem(server(), p, 'ONCE1', 'a');
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.body.data.times_redeemed, 1);
      assert.equal((await redeem(server(), p, 'ONCE1', 'b')).status, 422);

      await newCode(server(), p, { coupon_uuid: 'lim1', code: 'MANY' });
      let last: Awaited<ReturnType<typeof redeem>> | undefined;
      for (let i = 0; i < 30; i++) last = await redeem(server(), p, 'MANY', `m${i}`);
      assert.equal(last?.body.data.times_redeemed, 30);
      const keys = last?.body.data.additional_info.redemptions.map((r) => r.transaction_key);
      assert.deepEqual(
        keys,
        Array.from({ length: 25 }, (_, i) => `m${i + 5}`),
      );
    });

    test('60 concurrent redemptions of a code limited to 10: exactly 10 succeed', async () => {
      clock.set('2026-03-10T12:00:00Z');
      const p = await server().newProgram('affiliate');
      await newCoupon(server(), p, { uuid_code: 'race' });
      await newCode(server(), p, {
        coupon_uuid: 'race',
        code: 'RACE',
        redemption_times_status: true,
        redemption_times_value: 10,
      });
      const replies = await Promise.all(
        Array.from({ length: 60 }, (_, i) => redeem(server(), p, 'RACE', `k${i}`)),
      );
      const statuses = replies.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 10, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 422).length, 50);
      const code = await server().request('GET', '/v1/promotion-codes/RACE', { token: p.token });
      assert.equal(code.body.data.times_redeemed, 10);
      assert.equal(code.body.data.additional_info.redemptions.length, 10);
      const coupon = await server().request('GET', '/v1/coupons/race', { token: p.token });
      assert.equal(coupon.body.data.times_redeemed, 10);
    });

    test("40 concurrent redemptions over two codes of a coupon limited to 5: exactly 5, the coupon's limit", async () => {
      clock.set('2026-03-10T12:00:00Z');
      const p = await server().newProgram('newsletter');
      await newCoupon(server(), p, {
        uuid_code: 'shared',
        redemption_times_status: true,
        redemption_times_value: 5,
      });
      await newCode(server(), p, { coupon_uuid: 'shared', code: 'S1' });
      await newCode(server(), p, { coupon_uuid: 'shared', code: 'S2' });
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, i) => redeem(server(), p, i % 2 === 0 ? 'S1' : 'S2', `k${i}`)),
      );
      const statuses = replies.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 5, JSON.stringify(statuses));
      const coupon = await server().request('GET', '/v1/coupons/shared', { token: p.token });
      assert.equal(coupon.body.data.times_redeemed, 5);
      const codes = coupon.body.data.promotion_codes;
      assert.equal(
        codes.reduce((sum, c) => sum + c.times_redeemed, 0),
        5,
        'refused redemptions were taken back from their code',
      );
    });

    test('20 concurrent redemptions with one transaction_key: exactly one counts', async () => {
      const p = await server().newProgram('referral');
      await newCoupon(server(), p, { uuid_code: 'same' });
      await newCode(server(), p, { coupon_uuid: 'same', code: 'SAME' });
      const replies = await Promise.all(
        Array.from({ length: 20 }, () => redeem(server(), p, 'SAME', 'order-42')),
      );
      assert.deepEqual(
        replies.map((r) => r.status),
        Array(20).fill(200),
      );
      const code = await server().request('GET', '/v1/promotion-codes/SAME', { token: p.token });
      assert.equal(code.body.data.times_redeemed, 1);
      assert.deepEqual(
        code.body.data.additional_info.redemptions.map((r) => r.transaction_key),
        ['order-42'],
      );
      for (const reply of replies) assert.equal(reply.body.data.times_redeemed, 1);
    });
  },
  { clock },
);
