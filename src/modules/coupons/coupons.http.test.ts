import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

const coupon = (overrides: Record<string, unknown> = {}) => ({
  coupon_discount_type: 'percent',
  coupon_discount_amount: 12.5,
  coupon_duration_type: 'once',
  ...overrides,
});

describeEachDatabase('coupons API', (server) => {
  test('create without active, name or uuid_code: generated, active, with message and synchronization fields', async () => {
    for (const type of ['affiliate', 'referral', 'newsletter'] as const) {
      const p = await server().newProgram(type);
      const created = await server().request('POST', '/v1/coupons', { token: p.token, body: coupon() });
      assert.equal(created.status, 200, created.text);
      const data = created.body.data;
      assert.match(data.uuid_code, /^[A-Za-z0-9]{12}$/);
      assert.equal(data.name, data.uuid_code);
      assert.equal(data.active, true);
      assert.equal(data.coupon_discount_amount, 12.5);
      assert.equal(data.coupon_duration_value, null);
      assert.deepEqual(data.metadata, []);
      assert.deepEqual(data.promotion_codes, []);
      assert.equal(created.body.message, 'Coupon created in the app successfully.');
      assert.equal(created.body.synchronization_enabled, false);
      assert.equal('message' in data, false);
      assert.equal(typeof data.id, 'number');
      assert.equal(data.deleted_at, null);

      const fetched = await server().request('GET', `/v1/coupons/${data.uuid_code}`, { token: p.token });
      assert.equal(fetched.status, 200);
      assert.equal(fetched.body.data.uuid_code, data.uuid_code);
      assert.equal('message' in fetched.body.data, false);
    }
  });

  test('the create rules, each a 422 naming its field', async () => {
    const p = await server().newProgram('affiliate');
    const cases: [Record<string, unknown>, string, string][] = [
      [
        { coupon_discount_amount: 0 },
        'coupon_discount_amount',
        'The coupon discount amount field must be greater than 0.',
      ],
      [
        { coupon_discount_amount: 100.5 },
        'coupon_discount_amount',
        'The coupon discount amount field must not be greater than 100.',
      ],
      [
        { coupon_discount_amount: 'abc' },
        'coupon_discount_amount',
        'The coupon discount amount field must be a number.',
      ],
      [
        { coupon_discount_type: 'static', coupon_discount_amount: 9.5 },
        'coupon_discount_amount',
        'The coupon discount amount field must be an integer.',
      ],
      [
        { coupon_discount_type: 'fixed' },
        'coupon_discount_type',
        'The selected coupon discount type is invalid.',
      ],
      [
        { coupon_duration_type: 'weeks' },
        'coupon_duration_type',
        'The selected coupon duration type is invalid.',
      ],
      [
        { coupon_duration_type: 'months' },
        'coupon_duration_value',
        'The coupon duration value field is required when coupon duration type is months.',
      ],
      [
        { coupon_duration_type: 'lifetime', coupon_duration_value: 3 },
        'coupon_duration_value',
        'The coupon duration value field is prohibited when coupon duration type is lifetime.',
      ],
      [
        { coupon_duration_type: 'days', coupon_duration_value: 0 },
        'coupon_duration_value',
        'The coupon duration value field must be between 1 and 1000000000.',
      ],
      [
        { redemption_specific_date_status: true },
        'redemption_specific_date_value',
        'The redemption specific date value field is required when redemption specific date status is on.',
      ],
      [
        { redemption_times_status: 'on' },
        'redemption_times_value',
        'The redemption times value field is required when redemption times status is on.',
      ],
      [
        { redemption_times_status: 'maybe' },
        'redemption_times_status',
        'The redemption times status field must be true or false.',
      ],
      [
        { redemption_specific_date_value: '2026-13-01' },
        'redemption_specific_date_value',
        'The redemption specific date value field must match the format Y-m-d.',
      ],
      [{ uuid_code: 'has space' }, 'uuid_code', 'The uuid code field format is invalid.'],
      [{ uuid_code: 'x'.repeat(256) }, 'uuid_code', 'The uuid code field format is invalid.'],
      [{ name: 'n'.repeat(256) }, 'name', 'The name field must not be greater than 255 characters.'],
      [{ metadata: 'x' }, 'metadata', 'The metadata field must be an array.'],
    ];
    for (const [overrides, field, message] of cases) {
      const reply = await server().request('POST', '/v1/coupons', {
        token: p.token,
        body: coupon(overrides),
      });
      assert.equal(reply.status, 422, `${JSON.stringify(overrides)}: ${reply.text}`);
      assert.deepEqual(reply.error.errors[field], [message], JSON.stringify(reply.error.errors));
      assert.equal(reply.body.status, 0);
    }
    const missing = await server().request('POST', '/v1/coupons', { token: p.token, body: {} });
    assert.deepEqual(Object.keys(missing.error.errors).sort(), [
      'coupon_discount_amount',
      'coupon_discount_type',
      'coupon_duration_type',
    ]);
    const list = await server().request('GET', '/v1/coupons', { token: p.token });
    assert.deepEqual(list.body.data, [], 'nothing was written');
  });

  test('the status flags take booleans or the older on/off; a uuid_code is unique in its program', async () => {
    const p = await server().newProgram('affiliate');
    const q = await server().newProgram('affiliate');
    const body = coupon({
      uuid_code: 'SUMMER_25-a',
      name: 'Summer',
      active: false,
      coupon_discount_type: 'static',
      coupon_discount_amount: '25',
      coupon_duration_type: 'months',
      coupon_duration_value: 3,
      redemption_specific_date_status: 'on',
      redemption_specific_date_value: '2030-06-30',
      redemption_times_status: 'off',
      metadata: { campaign: 'summer', tier: 2 },
    });
    const created = await server().request('POST', '/v1/coupons', { token: p.token, body });
    assert.equal(created.status, 200, created.text);
    const data = created.body.data;
    assert.equal(data.uuid_code, 'SUMMER_25-a');
    assert.equal(data.active, false);
    assert.equal(data.coupon_discount_amount, 25);
    assert.equal(data.redemption_specific_date_status, true);
    assert.equal(data.redemption_specific_date_value, '2030-06-30');
    assert.equal(data.redemption_times_status, false);
    assert.deepEqual(data.metadata, { campaign: 'summer', tier: 2 });
    const other = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: { ...body, coupon_discount_amount: 30 },
    });
    assert.equal(other.status, 422);
    assert.deepEqual(other.error.errors, { uuid_code: ['The uuid code has already been taken.'] });
    const elsewhere = await server().request('POST', '/v1/coupons', { token: q.token, body });
    assert.equal(elsewhere.status, 200);
  });

  test('create is insert-or-replay on uuid_code: the same request answers the stored coupon, another is taken', async () => {
    const p = await server().newProgram('affiliate');
    const body = coupon({ uuid_code: 'again', metadata: { a: 'b' }, promotion_codes: [{ code: 'AGAIN1' }] });
    const first = await server().request('POST', '/v1/coupons', { token: p.token, body });
    assert.equal(first.status, 200, first.text);
    // The same fields in another order are the same request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await server().request('POST', '/v1/coupons', { token: p.token, body: reordered });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, first.body);
    const list = await server().request('GET', '/v1/coupons', { token: p.token });
    assert.equal(list.body.data.length, 1);

    const renamed = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: { ...body, name: 'Another' },
    });
    assert.equal(renamed.status, 422, renamed.text);
    assert.deepEqual(renamed.error.errors, { uuid_code: ['The uuid code has already been taken.'] });

    // A replay answers the coupon as it is now; a deleted coupon frees its uuid_code for a new one.
    await server().request('PUT', '/v1/coupons/again', { token: p.token, body: { name: 'Changed' } });
    const afterUpdate = await server().request('POST', '/v1/coupons', { token: p.token, body });
    assert.equal(afterUpdate.status, 200);
    assert.equal(afterUpdate.body.data.name, 'Changed');
    assert.equal(afterUpdate.body.data.id, first.body.data.id);
    await server().request('DELETE', '/v1/coupons/again', { token: p.token });
    const fresh = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: coupon({ uuid_code: 'again' }),
    });
    assert.equal(fresh.status, 200, fresh.text);
    assert.notEqual(fresh.body.data.id, first.body.data.id);
  });

  test('20 concurrent identical creates: one coupon with its codes, every answer the same', async () => {
    const p = await server().newProgram('referral');
    const body = coupon({ uuid_code: 'burst', promotion_codes: [{ code: 'BURST1' }, { code: 'BURST2' }] });
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => server().request('POST', '/v1/coupons', { token: p.token, body })),
    );
    assert.deepEqual(
      replies.map((r) => r.status),
      Array(20).fill(200),
      replies.map((r) => r.text).join('\n'),
    );
    for (const reply of replies) assert.deepEqual(reply.body, itemAt(replies).body);
    const list = await server().request('GET', '/v1/coupons', { token: p.token });
    assert.equal(list.body.data.length, 1);
    assert.deepEqual(
      itemAt(list.body.data).promotion_codes.data.map((c) => c.code),
      ['BURST1', 'BURST2'],
    );
  });

  test('20 concurrent creates of one uuid_code with two bodies: one coupon, its body answered, the other taken', async () => {
    const p = await server().newProgram('newsletter');
    const names = ['A', 'B'];
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        server().request('POST', '/v1/coupons', {
          token: p.token,
          body: coupon({ uuid_code: 'split', name: names[i % 2] }),
        }),
      ),
    );
    const stored = await server().request('GET', '/v1/coupons/split', { token: p.token });
    const winner = stored.body.data.name;
    replies.forEach((reply, i) => {
      if (names[i % 2] === winner) assert.equal(reply.status, 200, reply.text);
      else assert.deepEqual(reply.error.errors, { uuid_code: ['The uuid code has already been taken.'] });
    });
    const list = await server().request('GET', '/v1/coupons', { token: p.token });
    assert.equal(list.body.data.length, 1);
  });

  test('update by uuid_code in the body, in the path, or by the older id; metadata merged; rules re-checked', async () => {
    const p = await server().newProgram('referral');
    const created = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: coupon({ uuid_code: 'c1', metadata: { a: '1', b: '2' } }),
    });
    const id = created.body.data.id;

    const byBody = await server().request('PUT', '/v1/coupons', {
      token: p.token,
      body: { uuid_code: 'c1', name: 'Renamed', metadata: { b: null, c: '3' } },
    });
    assert.equal(byBody.status, 200, byBody.text);
    assert.equal(byBody.body.data.name, 'Renamed');
    assert.deepEqual(byBody.body.data.metadata, { a: '1', c: '3' });
    assert.equal(byBody.body.message, 'Coupon updated in the app successfully.');
    assert.equal(byBody.body.synchronization_enabled, false);

    const byPath = await server().request('PUT', '/v1/coupons/c1', {
      token: p.token,
      body: { update: { active: false, coupon_discount_amount: 50 } },
    });
    assert.equal(byPath.status, 200, byPath.text);
    assert.equal(byPath.body.data.active, false);
    assert.equal(byPath.body.data.coupon_discount_amount, 50);

    const byId = await server().request('PUT', '/v1/coupons', {
      token: p.token,
      body: { id, coupon_discount_type: 'static', coupon_discount_amount: 10, active: true },
    });
    assert.equal(byId.status, 200, byId.text);
    assert.equal(byId.body.data.coupon_discount_type, 'static');
    assert.equal(byId.body.data.active, true);
    assert.equal(byId.body.data.uuid_code, 'c1');

    // Switching to percent keeps the stored amount, which the rule then refuses.
    const bad = await server().request('PUT', '/v1/coupons/c1', {
      token: p.token,
      body: { coupon_discount_type: 'percent', coupon_discount_amount: 150 },
    });
    assert.equal(bad.status, 422);
    assert.ok(bad.error.errors.coupon_discount_amount);
    const durationBad = await server().request('PUT', '/v1/coupons/c1', {
      token: p.token,
      body: { coupon_duration_type: 'days' },
    });
    assert.deepEqual(durationBad.error.errors, {
      coupon_duration_value: [
        'The coupon duration value field is required when coupon duration type is days.',
      ],
    });
    const unchanged = await server().request('GET', '/v1/coupons/c1', { token: p.token });
    assert.equal(unchanged.body.data.coupon_discount_type, 'static');
    assert.equal(unchanged.body.data.coupon_duration_type, 'once');

    const noName = await server().request('PUT', '/v1/coupons', { token: p.token, body: { name: 'x' } });
    assert.equal(noName.status, 422);
    assert.deepEqual(noName.error.errors, { uuid_code: ['The uuid code field is required.'] });
    const unknown = await server().request('PUT', '/v1/coupons', {
      token: p.token,
      body: { uuid_code: 'nope' },
    });
    assert.equal(unknown.status, 404);
    const unknownId = await server().request('PUT', '/v1/coupons', { token: p.token, body: { id: 999999 } });
    assert.equal(unknownId.status, 404);
  });

  test("delete: status 1, then 404 `Coupon not found`; another program's coupon is not found either", async () => {
    const p = await server().newProgram('affiliate');
    const q = await server().newProgram('affiliate');
    await server().request('POST', '/v1/coupons', { token: p.token, body: coupon({ uuid_code: 'gone' }) });
    const foreign = await server().request('DELETE', '/v1/coupons/gone', { token: q.token });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.error.message, 'Coupon not found');
    assert.equal(foreign.body.status, 0);
    const foreignGet = await server().request('GET', '/v1/coupons/gone', { token: q.token });
    assert.equal(foreignGet.status, 404);
    const foreignPut = await server().request('PUT', '/v1/coupons', {
      token: q.token,
      body: { uuid_code: 'gone' },
    });
    assert.equal(foreignPut.status, 404);

    const deleted = await server().request('DELETE', '/v1/coupons/gone', { token: p.token });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.status, 1);
    assert.equal(deleted.body.message, 'Coupon deleted in the app successfully.');
    assert.equal(deleted.body.synchronization_enabled, false);
    const again = await server().request('DELETE', '/v1/coupons/gone', { token: p.token });
    assert.equal(again.status, 404);
    assert.deepEqual(again.body, { message: 'Coupon not found', errors: {}, status: 0 });
    assert.equal((await server().request('GET', '/v1/coupons/gone', { token: p.token })).status, 404);
    // Its uuid_code is free again.
    const reused = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: coupon({ uuid_code: 'gone' }),
    });
    assert.equal(reused.status, 200, reused.text);
  });

  test('lists never fail: empty, paged, codes as {data: [...]}', async () => {
    const p = await server().newProgram('newsletter');
    const empty = await server().request('GET', '/v1/coupons', { token: p.token });
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body.data, []);
    assert.equal(empty.body.meta.per_page, 15);
    for (const uuid of ['l1', 'l2', 'l3']) {
      await server().request('POST', '/v1/coupons', {
        token: p.token,
        body: coupon({ uuid_code: uuid, promotion_codes: [{ code: `${uuid}-code` }] }),
      });
    }
    const page = await server().request('GET', '/v1/coupons?limit=2', { token: p.token });
    assert.deepEqual(
      page.body.data.map((c: { uuid_code: string }) => c.uuid_code),
      ['l3', 'l2'],
    );
    assert.deepEqual(
      itemAt(page.body.data).promotion_codes.data.map((c) => c.code),
      ['l3-code'],
    );
    assert.ok(page.body.links.next);
    const asc = await server().request('GET', '/v1/coupons?sort=asc&page=2&limit=2', { token: p.token });
    assert.deepEqual(
      asc.body.data.map((c: { uuid_code: string }) => c.uuid_code),
      ['l3'],
    );
    await server().request('DELETE', '/v1/coupons/l2', { token: p.token });
    const after = await server().request('GET', '/v1/coupons', { token: p.token });
    assert.deepEqual(
      after.body.data.map((c: { uuid_code: string }) => c.uuid_code),
      ['l3', 'l1'],
    );
  });

  test('codes created with the coupon are all-or-nothing; their errors name promotion_codes.N', async () => {
    const p = await server().newProgram('affiliate');
    const bad = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: coupon({
        uuid_code: 'with-codes',
        promotion_codes: [{ code: 'DUP' }, { code: 'dup' }],
      }),
    });
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(bad.error.errors, {
      'promotion_codes.1.code': ['The promotion codes.1.code has already been taken.'],
    });
    assert.equal((await server().request('GET', '/v1/coupons/with-codes', { token: p.token })).status, 404);
    const limit = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: coupon({ promotion_codes: [{ code: 'X', redemption_times_status: true }] }),
    });
    assert.equal(limit.status, 422);
    assert.ok(limit.error.errors['promotion_codes.0.redemption_times_value'], limit.text);
    const ok = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: coupon({ uuid_code: 'with-codes', promotion_codes: [{ code: 'A1' }, {}] }),
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.data.promotion_codes.length, 2);
    assert.equal(ok.body.data.promotion_codes[0]?.code, 'A1');
    assert.equal(ok.body.data.promotion_codes[0]?.coupon_uuid, 'with-codes');
  });

  test('oversized and malformed input is a 4xx, never a 500', async () => {
    const p = await server().newProgram('affiliate');
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    const tooMany = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: coupon({ metadata: many }),
    });
    assert.equal(tooMany.status, 422);
    const nested = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: coupon({ metadata: { a: { b: 1 } } }),
    });
    assert.equal(nested.status, 422);
    const huge = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: coupon({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    assert.equal(huge.status, 413);
    const codes = await server().request('POST', '/v1/coupons', {
      token: p.token,
      body: coupon({ promotion_codes: Array.from({ length: 101 }, () => ({})) }),
    });
    assert.equal(codes.status, 422);
    const badJson = await server().request('POST', '/v1/coupons', { token: p.token, body: '{"a":' });
    assert.equal(badJson.status, 400);
  });
});
