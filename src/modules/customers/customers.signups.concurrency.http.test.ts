import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { describeEachDatabase, startServer, type TestServer } from '../../../test/harness.ts';
import { inParallel } from '../../../test/in-parallel.ts';
import { itemAt } from '../../../test/items.ts';
import { joinCounterParts } from '../../db/counter-parts.ts';

/**
 * Refer-a-friend signups at once (issue 15): on PostgreSQL most are written without a transaction
 * (customers.referral.ts, `createAtOnce`), the rest (a referrer named by an additional link's key)
 * in one. Signups of fresh referrers race for each referrer's first referral through two Vouch
 * instances (one on SQLite), then every figure they moved equals a recount of the customers.
 */

const REFERRERS = 12;
const SIGNUPS = 144;
const PARALLEL = 30;

describeEachDatabase('refer-a-friend signups at once keep every figure exact', (server, dialect) => {
  let second: TestServer;
  before(async () => {
    second =
      dialect === 'postgres'
        ? await startServer({
            dialect,
            database: { url: (server() as TestServer & { databaseUrl: string }).databaseUrl },
          })
        : server();
  });
  after(async () => {
    if (second !== server()) await second.close();
  });
  const instance = (i: number) => (i % 2 ? second : server());

  test(`${SIGNUPS} signups of ${REFERRERS} fresh referrers at once: figures equal a recount`, async () => {
    const p = await server().newProgram('referral');
    const call = <const M extends string, const P extends string>(
      at: TestServer,
      method: M,
      path: P,
      body?: unknown,
    ) => at.request(method, path, { token: p.token, body });
    for (let r = 0; r < REFERRERS; r++) {
      const created = await call(server(), 'POST', '/v1/customers', {
        id: `f${r}`,
        key: `f${r}-key`,
        email: `f${r}@gmail.com`,
      });
      assert.equal(created.status, 201, created.text);
      const link = await call(server(), 'POST', '/v1/customer_referral_links', {
        key: `promo-${r}`,
        customer: { id: `f${r}` },
      });
      assert.equal(link.status, 200, link.text);
    }
    // Each referrer is named by id, key, e-mail or an additional link's key (the transaction
    // path); every ninth signup uses its referrer's own mailbox (a rejected self-referral), and
    // the last two of every sixteen take one id (one of the two is refused).
    const replies = await inParallel(SIGNUPS, PARALLEL, (i) => {
      const r = i % REFERRERS;
      const by = Math.floor(i / REFERRERS) % 4;
      return call(instance(i), 'POST', '/v1/customers', {
        id: i % 16 >= 14 ? `dup-${Math.floor(i / 16)}` : `n${i}`,
        email: i % 9 === 4 ? `f${r}+n${i}@gmail.com` : `n${i}@example.com`,
        referring_customer: [
          { id: `f${r}` },
          { key: `f${r}-key` },
          { email: `f${r}@gmail.com` },
          { key: `promo-${r}` },
        ][by],
      });
    });
    const failed = replies.filter((reply) => reply.status !== 201);
    for (const reply of failed)
      assert.deepEqual(reply.error.errors, { id: ['The id has already been taken.'] });
    assert.equal(failed.length, SIGNUPS / 16);

    const db = server().deps.database.db;
    const customers = await db
      .selectFrom('customers')
      .select(['id', 'referring_customer_id', 'self_referral'])
      .where('program_id', '=', p.id)
      .execute();
    const referredBy = new Map<number, number>();
    for (const c of customers)
      if (c.referring_customer_id !== null)
        referredBy.set(
          Number(c.referring_customer_id),
          (referredBy.get(Number(c.referring_customer_id)) ?? 0) + 1,
        );
    assert.equal(customers.length, REFERRERS + replies.filter((reply) => reply.status === 201).length);
    if (dialect === 'postgres') {
      // Signups arriving together were written together (customers.signup-batch.ts): customers
      // written by one statement share its transaction id.
      const written = await sql<{ count: number }>`
        select count(distinct xmin::text) as count from customers
        where program_id = ${p.id} and referring_customer_id is not null`.execute(db);
      const statements = Number(itemAt(written.rows).count);
      assert.ok(
        statements < customers.length - REFERRERS,
        `${customers.length - REFERRERS} signups in ${statements} statements`,
      );
    }

    const figures = await db
      .selectFrom('entity_counters')
      .select([
        'owner_id',
        'metric',
        sql<string>`cast(sum(value) as text)`.as('low'),
        sql<string>`cast(sum(value_hi) as text)`.as('high'),
        sql<number>`count(*)`.as('slots'),
      ])
      .where('program_id', '=', p.id)
      .where('owner_kind', '=', 'customer')
      .groupBy(['owner_id', 'metric'])
      .execute();
    const figure = (owner: number, metric: string) => {
      const row = figures.find((f) => Number(f.owner_id) === owner && f.metric === metric);
      return row ? Number(joinCounterParts(BigInt(row.low), BigInt(row.high))) : 0;
    };
    assert.equal(referredBy.size, REFERRERS);
    for (const [owner, count] of referredBy) {
      assert.equal(figure(owner, 'referrals_count'), count, `referrals_count of ${owner}`);
      assert.equal(figure(owner, 'signups'), count, `signups of ${owner}`);
    }
    if (dialect === 'postgres')
      assert.ok(
        figures.some((f) => Number(f.slots) > 1),
        'the referrers’ figures were written on several slots',
      );

    const program = await db
      .selectFrom('program_counters')
      .select([
        'metric',
        sql<string>`cast(sum(value) as text)`.as('low'),
        sql<string>`cast(sum(value_hi) as text)`.as('high'),
      ])
      .where('program_id', '=', p.id)
      .where('day', '=', 'total')
      .groupBy('metric')
      .execute();
    const total = (metric: string) => {
      const row = program.find((f) => f.metric === metric);
      return row ? Number(joinCounterParts(BigInt(row.low), BigInt(row.high))) : 0;
    };
    assert.equal(total('customers'), customers.length);
    assert.equal(
      total('referred_customers'),
      customers.filter((c) => c.referring_customer_id !== null).length,
    );
    assert.equal(total('referring_customers'), referredBy.size, 'each referrer counted once');
    assert.equal(total('rejected_self_referrals'), customers.filter((c) => Boolean(c.self_referral)).length);
    assert.ok(total('rejected_self_referrals') > 0, 'some signups were self-referrals');

    // The records show the same counts.
    for (let r = 0; r < REFERRERS; r++) {
      const record = await call(instance(r), 'GET', `/v1/customers/f${r}`);
      const owner = await db
        .selectFrom('customers')
        .select('id')
        .where('program_id', '=', p.id)
        .where('public_id', '=', `f${r}`)
        .executeTakeFirstOrThrow();
      assert.equal(record.body.data.referrals_count, referredBy.get(Number(owner.id)), `f${r}`);
    }
  });

  test('a referrer named by the key of its additional link; the record and event match a read', async () => {
    const p = await server().newProgram('referral', { website: 'https://friends.example' });
    const call = <const M extends string, const P extends string>(method: M, path: P, body?: unknown) =>
      server().request(method, path, { token: p.token, body });
    // Events are written while a webhook listens (src/outbox/outbox.ts).
    const hook = await call('POST', '/v1/webhooks', {
      name: 'signups',
      url: 'http://127.0.0.1:9/hook',
      events: ['customer.created'],
    });
    assert.equal(hook.status, 200, hook.text);
    assert.equal(
      (await call('POST', '/v1/customers', { id: 'a', key: 'a-key', email: 'a@example.com' })).status,
      201,
    );
    assert.equal(
      (await call('POST', '/v1/customer_referral_links', { key: 'a-promo', customer: { id: 'a' } })).status,
      200,
    );
    const viaLink = await call('POST', '/v1/customers', {
      id: 'b',
      email: 'b@example.com',
      referring_customer: { key: 'a-promo' },
    });
    assert.equal(viaLink.status, 201, viaLink.text);
    assert.equal(viaLink.body.data.referring_customer?.id, 'a');
    assert.equal(viaLink.body.data.referring_customer?.referrals_count, 1);
    const byId = await call('POST', '/v1/customers', {
      id: 'c',
      email: 'c@example.com',
      referring_customer: { id: 'a' },
    });
    assert.equal(byId.status, 201, byId.text);
    const { referring_customer: _none, ...referrer } = (await call('GET', '/v1/customers/a')).body.data;
    assert.deepEqual(byId.body.data.referring_customer, referrer);
    assert.deepEqual(byId.body.data, (await call('GET', '/v1/customers/c')).body.data);
    assert.equal(byId.body.data.referring_customer.referrals_count, 2);
    assert.deepEqual(byId.body.data.referring_customer.referral_links, [
      'https://friends.example?ref=a-key',
      'https://friends.example?ref=a-promo',
    ]);
    const event = await server()
      .deps.database.db.selectFrom('events')
      .select('payload')
      .where('program_id', '=', p.id)
      .where('event', '=', 'customer.created')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(event.payload), byId.body.data);
  });
});
