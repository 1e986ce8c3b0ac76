import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  connect,
  deliver,
  deliverOk,
  eventsLog,
  invoicePaid,
  PADDLE_SECRET,
  paddleSignature,
  programWithPartner,
  STRIPE_SECRET,
  stripeSignature,
  unique,
} from '../../../test/billing-events.ts';
import {
  describeEachDatabase,
  startServer,
  type TestProgram,
  type TestServer,
  testDialects,
} from '../../../test/harness.ts';

const connectedProgram = (server: TestServer) => programWithPartner(server, ['stripe', 'paddle']);

/** A sale for a customer linked to partner `pa`. */
async function linkedInvoice(server: TestServer, p: TestProgram, amountPaid = 2900) {
  const customer = `cus_${unique()}`;
  const made = await server.request('POST', '/v1/customers', {
    token: p.token,
    body: { key: customer, partner: { key: 'pa' } },
  });
  assert.equal(made.status, 201, made.text);
  return invoicePaid(customer, amountPaid);
}

const rowCount = async (server: TestServer, p: TestProgram) =>
  Number(
    (
      await server.deps.database.db
        .selectFrom('billing_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('program_id', '=', p.id)
        .executeTakeFirstOrThrow()
    ).n,
  );

describeEachDatabase('integration settings', (server) => {
  test('PUT connects a processor; the secret is sealed, never returned, and its hint is its last 4 characters', async () => {
    const p = await server().newProgram('affiliate');
    const put = await server().request('PUT', '/v1/integrations/stripe', {
      token: p.token,
      body: { webhook_secret: STRIPE_SECRET, active: true },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.headers.get('content-type'), 'application/json');
    assert.deepEqual(Object.keys(put.body.data).sort(), [
      'active',
      'created_at',
      'endpoint_url',
      'provider',
      'secret_hint',
      'updated_at',
    ]);
    assert.equal(put.body.data.secret_hint, STRIPE_SECRET.slice(-4));
    assert.equal(put.body.data.endpoint_url, `${server().url}/integrations/stripe/${p.publicId}`);
    assert.ok(!put.text.includes(STRIPE_SECRET));
    const stored = await server()
      .deps.database.db.selectFrom('billing_integrations')
      .select('secret')
      .where('program_id', '=', p.id)
      .executeTakeFirstOrThrow();
    assert.match(stored.secret, /^enc:v1:/);
    assert.equal(server().deps.secrets.open(stored.secret), STRIPE_SECRET);

    const off = await server().request('PUT', '/v1/integrations/stripe', {
      token: p.token,
      body: { active: false },
    });
    assert.equal(off.body.data.active, false);
    assert.equal(off.body.data.secret_hint, STRIPE_SECRET.slice(-4));
    const list = await server().request('GET', '/v1/integrations', { token: p.token });
    assert.deepEqual(
      list.body.data.map((i: { provider: string; active: boolean }) => [i.provider, i.active]),
      [['stripe', false]],
    );
    const missing = await server().request('PUT', '/v1/integrations/paddle', {
      token: p.token,
      body: { active: true },
    });
    assert.equal(missing.status, 404, missing.text);
    assert.equal(missing.error.message, 'Integration not found.');
    const unknown = await server().request('PUT', '/v1/integrations/braintree', {
      token: p.token,
      body: { webhook_secret: 'whsec_12345678' },
    });
    assert.equal(unknown.status, 404, unknown.text);
    const deleted = await server().request('DELETE', '/v1/integrations/stripe', { token: p.token });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await server().request('GET', '/v1/integrations/stripe', { token: p.token })).status, 404);
  });

  test('read-scope keys read but do not write; newsletter programs have no integrations', async () => {
    const p = await server().newProgram('affiliate');
    await connect(server(), p, 'paddle');
    const read = await server().request('GET', '/v1/integrations/paddle', { token: p.readToken });
    assert.equal(read.status, 200, read.text);
    assert.ok(!read.text.includes(PADDLE_SECRET));
    const write = await server().request('PUT', '/v1/integrations/paddle', {
      token: p.readToken,
      body: { webhook_secret: 'pdl_ntfset_other_secret' },
    });
    assert.equal(write.status, 403);
    assert.equal(
      (await server().request('DELETE', '/v1/integrations/paddle', { token: p.readToken })).status,
      403,
    );
    assert.equal(
      (await server().request('GET', '/v1/integrations/events', { token: p.readToken })).status,
      200,
    );
    const newsletter = await server().newProgram('newsletter');
    assert.equal(
      (await server().request('GET', '/v1/integrations', { token: newsletter.token })).status,
      403,
    );
  });

  test('the events log filters by provider and status, newest first, paginated', async () => {
    const p = await connectedProgram(server());
    const first = await deliverOk(server(), p, 'stripe', invoicePaid(`cus_${unique()}`, 100), 'unattributed');
    const second = await deliverOk(server(), p, 'stripe', await linkedInvoice(server(), p));
    const paddleEvent = {
      event_id: `evt_${unique()}`,
      event_type: 'payout.paid',
      occurred_at: '2024-11-28T00:00:00Z',
      notification_id: 'ntf_1',
      data: { id: 'pay_1' },
    };
    const third = await deliverOk(server(), p, 'paddle', paddleEvent, 'ignored');
    const all = await eventsLog(server(), p);
    assert.deepEqual(
      all.map((e: { id: number }) => e.id),
      [third.id, second.id, first.id],
    );
    assert.deepEqual(
      (await eventsLog(server(), p, '?provider=paddle')).map((e: { id: number }) => e.id),
      [third.id],
    );
    assert.deepEqual(
      (await eventsLog(server(), p, '?status=processed')).map((e: { id: number }) => e.id),
      [second.id],
    );
    const page = await server().request('GET', '/v1/integrations/events?limit=2&page=2', { token: p.token });
    assert.deepEqual(
      page.body.data.map((e: { id: number }) => e.id),
      [first.id],
    );
    assert.equal(page.body.meta.current_page, 2);
    assert.equal(
      (await server().request('GET', '/v1/integrations/events?status=odd', { token: p.token })).status,
      422,
    );
    const other = await server().newProgram('affiliate');
    assert.equal(
      (await server().request('POST', `/v1/integrations/events/${second.id}/retry`, { token: other.token }))
        .status,
      404,
    );
  });
});

describeEachDatabase('bad input from processors', (server) => {
  test('a wrong or missing signature, or a body changed after signing → 400, nothing written', async () => {
    const p = await connectedProgram(server());
    const event = await linkedInvoice(server(), p);
    const body = JSON.stringify(event);
    const cases = [
      { name: 'wrong secret', options: { signature: stripeSignature(body, 'whsec_another_secret_0000') } },
      { name: 'missing', options: { signature: null } },
      { name: 'garbage', options: { signature: 'not-a-signature' } },
      { name: 'changed after signing', options: { rawBody: body.replace('2900', '2901') } },
    ];
    for (const c of cases) {
      const reply = await deliver(server(), p, 'stripe', event, c.options);
      assert.equal(reply.status, 400, `${c.name}: ${reply.text}`);
      assert.match(reply.error.message, /stripe-signature header/, c.name);
    }
    const paddle = await deliver(
      server(),
      p,
      'paddle',
      { event_id: 'evt_x', event_type: 'x', data: {} },
      {
        signature: paddleSignature('{"other":1}'),
      },
    );
    assert.equal(paddle.status, 400, paddle.text);
    assert.match(paddle.error.message, /paddle-signature header/);
    assert.equal(await rowCount(server(), p), 0);
  });

  test('a timestamp outside the tolerance → 400', async () => {
    const p = await connectedProgram(server());
    const event = await linkedInvoice(server(), p);
    const body = JSON.stringify(event);
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    const stripeOld = await deliver(server(), p, 'stripe', event, {
      signature: stripeSignature(body, STRIPE_SECRET, tenMinutesAgo),
    });
    assert.equal(stripeOld.status, 400, stripeOld.text);
    const paddleBody = JSON.stringify({ event_id: 'evt_old', event_type: 'transaction.completed', data: {} });
    const paddleOld = await deliver(server(), p, 'paddle', paddleBody, {
      signature: paddleSignature(paddleBody, PADDLE_SECRET, tenMinutesAgo),
    });
    assert.equal(paddleOld.status, 400, paddleOld.text);
    assert.equal(await rowCount(server(), p), 0);
  });

  test('invalid JSON, signed → 400; an event without an id → 400', async () => {
    const p = await connectedProgram(server());
    const text = '{"id": "evt_1", "type": ';
    const stripeBad = await deliver(server(), p, 'stripe', text, { signature: stripeSignature(text) });
    assert.equal(stripeBad.status, 400, stripeBad.text);
    assert.equal(stripeBad.error.message, 'The request body is not valid JSON.');
    const paddleBad = await deliver(server(), p, 'paddle', text, { signature: paddleSignature(text) });
    assert.equal(paddleBad.status, 400, paddleBad.text);
    assert.equal(paddleBad.error.message, 'The request body is not valid JSON.');
    const anonymous = await deliver(server(), p, 'stripe', { type: 'invoice.paid', data: { object: {} } });
    assert.equal(anonymous.status, 400, anonymous.text);
    assert.equal(await rowCount(server(), p), 0);
  });

  test('an unknown program, or an integration that is off or removed → 404', async () => {
    const p = await connectedProgram(server());
    const event = await linkedInvoice(server(), p);
    const unknown = await deliver(server(), p, 'stripe', event, { programPublicId: 'nosuchprogram' });
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal(unknown.error.message, 'Program not found.');
    const off = await server().request('PUT', '/v1/integrations/stripe', {
      token: p.token,
      body: { active: false },
    });
    assert.equal(off.status, 200);
    const whileOff = await deliver(server(), p, 'stripe', event);
    assert.equal(whileOff.status, 404, whileOff.text);
    assert.match(whileOff.error.message, /stripe integration of this program is not set up or is off/);
    await server().request('DELETE', '/v1/integrations/paddle', { token: p.token });
    const removed = await deliver(server(), p, 'paddle', { event_id: 'evt_1', event_type: 'x', data: {} });
    assert.equal(removed.status, 404, removed.text);
    const newsletter = await server().newProgram('newsletter');
    assert.equal((await deliver(server(), newsletter, 'stripe', event)).status, 404);
    assert.equal(await rowCount(server(), p), 0);
  });

  test('an event that can never be applied → 200, recorded as failed with the reason, retried only by hand', async () => {
    const p = await connectedProgram(server());
    const event = await linkedInvoice(server(), p);
    event.data.object.currency = 'zzz';
    const failed = await deliverOk(server(), p, 'stripe', event, 'failed');
    assert.equal(failed.reason, 'The currency zzz is not an ISO 4217 code Vouch knows.');
    const huge = await linkedInvoice(server(), p, 100_000_000_000_000);
    const refused = await deliverOk(server(), p, 'stripe', huge, 'failed');
    assert.equal(refused.reason, 'The amount field must be less than 1000000000000.');
    const again = await deliverOk(server(), p, 'stripe', event, 'failed');
    assert.equal(again.duplicate, true);
    const logged = await eventsLog(server(), p, '?status=failed');
    assert.deepEqual(
      logged.map((e: { id: number }) => e.id),
      [refused.id, failed.id],
    );
    const retried = await server().request('POST', `/v1/integrations/events/${failed.id}/retry`, {
      token: p.token,
    });
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.data.status, 'failed');
    const noSale = await server().request('GET', `/v1/transactions/${event.data.object.id}`, {
      token: p.token,
    });
    assert.equal(noSale.status, 404);
  });
});

for (const dialect of testDialects()) {
  test(`a passing fault (the database away) → 503, never a 500 [${dialect}]`, async () => {
    const server = await startServer({ dialect });
    const p = await connectedProgram(server);
    const event = await linkedInvoice(server, p);
    await server.deps.database.close();
    try {
      const reply = await deliver(server, p, 'stripe', event);
      assert.equal(reply.status, 503, reply.text);
      assert.match(reply.error.message, /deliver it again later/);
    } finally {
      await server.app.close().catch(() => {});
    }
  });
}
