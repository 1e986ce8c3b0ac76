import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, ManualClock, type TestProgram } from '../../../test/harness.ts';

// A signup time sent by the client moves commission windows and daily figures, so it is an ISO 8601
// timestamp not after the server's (injected) clock, or 422 on its own field.

const clock = new ManualClock();
clock.set('2026-01-15T12:00:00.000Z');

const bad = [
  { created_at: 12345, message: 'The created at field must be a string.' },
  { created_at: '12345', message: 'The created at field format is invalid.' },
  { created_at: 'yesterday', message: 'The created at field format is invalid.' },
  { created_at: '2025-13-01T00:00:00Z', message: 'The created at field format is invalid.' },
  { created_at: '+012345-01-01T00:00:00Z', message: 'The created at field format is invalid.' },
  {
    created_at: '2026-01-15T12:00:01Z',
    message: 'The created at field must be a date before or equal to now.',
  },
  {
    created_at: '2026-01-15T13:00:00+00:30',
    message: 'The created at field must be a date before or equal to now.',
  },
];

describeEachDatabase(
  'customer created_at',
  (server) => {
    const affiliate = async () => {
      const p = await server().newProgram('affiliate');
      const partner = await server().request('POST', '/v1/partners', {
        token: p.token,
        body: { email: 'p@example.com', key: 'pk' },
      });
      assert.equal(partner.status, 201, partner.text);
      return p;
    };
    const customers = async (p: TestProgram) =>
      (await server().request('GET', '/v1/customers?limit=250', { token: p.token })).body.data;

    test('affiliate customer create refuses a created_at that is not a past ISO 8601 timestamp', async () => {
      const p = await affiliate();
      for (const { created_at, message } of bad) {
        const res = await server().request('POST', '/v1/customers', {
          token: p.token,
          body: { key: 'c1', partner: { key: 'pk' }, created_at },
        });
        assert.equal(res.status, 422, `${created_at}: ${res.text}`);
        assert.deepEqual(res.error.errors, { created_at: [message] }, String(created_at));
      }
      const nested = await server().request('POST', '/v1/customer', {
        token: p.token,
        body: { customer: { key: 'c1', created_at: 12345 }, partner: { key: 'pk' } },
      });
      assert.equal(nested.status, 422, nested.text);
      assert.deepEqual(nested.error.errors, {
        'customer.created_at': ['The customer.created at field must be a string.'],
      });
      assert.equal((await customers(p)).length, 0);
    });

    test('a past created_at in any ISO 8601 offset is stored in UTC; now is allowed; none means now', async () => {
      const p = await affiliate();
      const create = (key: string, extra: Record<string, unknown>) =>
        server().request('POST', '/v1/customers', {
          token: p.token,
          body: { key, partner: { key: 'pk' }, ...extra },
        });
      const past = await create('c-past', { created_at: '2025-06-01T10:30:00.123456+02:00' });
      assert.equal(past.status, 201, past.text);
      assert.equal(past.body.data.created_at, '2025-06-01T08:30:00.123456Z');
      const now = await create('c-now', { created_at: '2026-01-15T12:00:00Z' });
      assert.equal(now.status, 201, now.text);
      assert.equal(now.body.data.created_at, '2026-01-15T12:00:00.000000Z');
      const none = await create('c-none', {});
      assert.equal(none.body.data.created_at, '2026-01-15T12:00:00.000000Z');
    });

    test('a sale creating its affiliate buyer refuses a future customer.created_at', async () => {
      const p = await affiliate();
      const sell = (created_at: unknown) =>
        server().request('POST', '/v1/transactions', {
          token: p.token,
          body: {
            amount: 10,
            action: 'sale',
            customer: { key: 'buyer', partner: { key: 'pk' }, created_at },
            options: { create_customer: true },
          },
        });
      for (const [created_at, message] of [
        [12345, 'must be a string.'],
        ['2026-01-16T00:00:00Z', 'must be a date before or equal to now.'],
      ] as const) {
        const res = await sell(created_at);
        assert.equal(res.status, 422, res.text);
        assert.deepEqual(res.error.errors['customer.created_at'], [
          `The customer.created at field ${message}`,
        ]);
      }
      assert.equal((await customers(p)).length, 0);
      const ok = await sell('2026-01-01T00:00:00Z');
      assert.equal(ok.status, 200, ok.text);
      const buyer = await server().request('GET', '/v1/customers/buyer', { token: p.token });
      assert.equal(buyer.body.data.created_at, '2026-01-01T00:00:00.000000Z');
    });

    test('a sale creating its refer-a-friend buyer refuses a future customer.created_at', async () => {
      const p = await server().newProgram('referral');
      const referrer = await server().request('POST', '/v1/customers', {
        token: p.token,
        body: { email: 'r@example.com', key: 'referrer' },
      });
      assert.equal(referrer.status, 201, referrer.text);
      const sell = (created_at: string) =>
        server().request('POST', '/v1/transactions', {
          token: p.token,
          body: {
            amount: 10,
            action: 'sale',
            customer: {
              key: 'buyer',
              email: 'b@example.com',
              referring_customer: { key: 'referrer' },
              created_at,
            },
            options: { create_customer: true },
          },
        });
      const future = await sell('2026-02-01T00:00:00Z');
      assert.equal(future.status, 422, future.text);
      assert.deepEqual(future.error.errors['customer.created_at'], [
        'The customer.created at field must be a date before or equal to now.',
      ]);
      const ok = await sell('2025-12-31T23:00:00-02:00');
      assert.equal(ok.status, 200, ok.text);
      const buyer = await server().request('GET', '/v1/customers:search?key=buyer', { token: p.token });
      assert.equal(buyer.body.data[0]?.created_at, '2026-01-01T01:00:00.000000Z');
    });
  },
  { clock },
);
