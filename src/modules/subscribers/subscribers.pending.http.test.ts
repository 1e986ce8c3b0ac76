import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  ManualClock,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { createWorker } from '../../worker.ts';

const DAY = 86_400_000;
const clock = new ManualClock();

/** A newsletter program with `referral_pending_days` 7, a milestone at one referral, a referrer. */
async function program(server: TestServer, days = 7) {
  const p = await server.newProgram('newsletter');
  const put = await server.request('PUT', '/v1/program', {
    token: p.token,
    body: { program_settings: { referral_pending_days: days } },
  });
  assert.equal(put.status, 200, put.text);
  const milestone = await server.request('POST', '/v1/rewards', {
    token: p.token,
    body: {
      name: 'Sticker',
      subscribers_count: 1,
      fulfillment_type: 'url_link',
      fulfillment_value: 'https://x.example/s',
    },
  });
  assert.equal(milestone.status, 201, milestone.text);
  const referrer = await subscribe(server, p, { email: 'ref@example.com' });
  return { p, referrer: String(referrer.id) };
}

async function subscribe(server: TestServer, p: TestProgram<'newsletter'>, body: Record<string, unknown>) {
  const reply = await server.request('POST', '/v1/subscribers', { token: p.token, body });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.data;
}

const referrerOf = async (server: TestServer, p: TestProgram<'newsletter'>, id: string) => {
  const res = await server.request('GET', `/v1/subscribers/${id}`, { token: p.token });
  assert.equal(res.status, 200, res.text);
  return { count: res.body.data.referrals_count, milestones: res.body.data.reward.length };
};

const unsubscribe = async (server: TestServer, p: TestProgram<'newsletter'>, id: string) => {
  const res = await server.request('PUT', `/v1/subscribers/${id}`, {
    token: p.token,
    body: { update: { status: 'suspended' } },
  });
  assert.equal(res.status, 200, res.text);
};

describeEachDatabase(
  'newsletter referral_pending_days',
  (server) => {
    test('a referred subscriber counts (and unlocks milestones) only once its window ends, if still subscribed', async () => {
      const { p, referrer } = await program(server());
      await subscribe(server(), p, { email: 'a@example.com', referral: { id: referrer } });
      assert.deepEqual(await referrerOf(server(), p, referrer), { count: 0, milestones: 0 });
      clock.advance(6 * DAY);
      assert.deepEqual(await referrerOf(server(), p, referrer), { count: 0, milestones: 0 });
      clock.advance(DAY + 1);
      assert.deepEqual(await referrerOf(server(), p, referrer), { count: 1, milestones: 1 });
      // Counted now: an unsubscribe after the window takes the count back, as without a window.
      const list = await server().request('GET', '/v1/subscribers?refer_status=referred', { token: p.token });
      await unsubscribe(server(), p, String(list.body.data[0]?.id));
      assert.deepEqual(await referrerOf(server(), p, referrer), { count: 0, milestones: 1 });
    });

    test('one who unsubscribes inside the window never counts, even subscribed again', async () => {
      const { p, referrer } = await program(server());
      const b = await subscribe(server(), p, { email: 'b@example.com', referral: { id: referrer } });
      clock.advance(2 * DAY);
      await unsubscribe(server(), p, String(b.id));
      const back = await server().request('PUT', `/v1/subscribers/${b.id}`, {
        token: p.token,
        body: { update: { status: 'active' } },
      });
      assert.equal(back.status, 200, back.text);
      clock.advance(30 * DAY);
      assert.deepEqual(await referrerOf(server(), p, referrer), { count: 0, milestones: 0 });
      // A referral deleted inside the window moves nothing either.
      const c = await subscribe(server(), p, { email: 'c@example.com', referral: { id: referrer } });
      const gone = await server().request('DELETE', `/v1/subscribers/${c.id}`, { token: p.token });
      assert.equal(gone.status, 200, gone.text);
      clock.advance(8 * DAY);
      assert.deepEqual(await referrerOf(server(), p, referrer), { count: 0, milestones: 0 });
    });

    test('the worker closes ended windows without any read: the count moves, the milestone e-mail leaves', async () => {
      const { p, referrer } = await program(server());
      await subscribe(server(), p, { email: 'w1@example.com', referral: { id: referrer } });
      const lapsing = await subscribe(server(), p, { email: 'w2@example.com', referral: { id: referrer } });
      clock.advance(DAY);
      await unsubscribe(server(), p, String(lapsing.id));
      const db = server().deps.database.db;
      const stored = () =>
        db
          .selectFrom('subscribers')
          .select(['referrals_count'])
          .where('program_id', '=', p.id)
          .where('email', '=', 'ref@example.com')
          .executeTakeFirstOrThrow();
      const mails = async () =>
        (
          await db
            .selectFrom('email_outbox')
            .select('subject')
            .where('program_id', '=', p.id)
            .where('recipient', '=', 'ref@example.com')
            .execute()
        ).length;
      const mailsBefore = await mails();
      const worker = createWorker(server().deps);
      try {
        // Inside the window the worker moves nothing.
        clock.advance(5 * DAY);
        await worker.runOnce();
        assert.equal(Number((await stored()).referrals_count), 0);
        clock.advance(DAY + 1);
        const pass = await worker.runOnce();
        assert.ok(pass.windows >= 1, `closed ${pass.windows}`);
        // Read from the table: an API read would close the window itself.
        assert.equal(Number((await stored()).referrals_count), 1, 'the lapsed one never counts');
        assert.equal(await mails(), mailsBefore + 1, 'the milestone e-mail is queued');
        assert.equal((await worker.runOnce()).windows, 0, 'nothing left to close');
      } finally {
        worker.close();
      }
      assert.deepEqual(await referrerOf(server(), p, referrer), { count: 1, milestones: 1 });
    });

    test('0 (the default) counts at once; a value out of range is a 422 naming the setting', async () => {
      const { p, referrer } = await program(server(), 0);
      await subscribe(server(), p, { email: 'd@example.com', referral: { id: referrer } });
      assert.deepEqual(await referrerOf(server(), p, referrer), { count: 1, milestones: 1 });
      for (const value of [-1, 366, 1.5, 'x']) {
        const res = await server().request('PUT', '/v1/program', {
          token: p.token,
          body: { program_settings: { referral_pending_days: value } },
        });
        assert.equal(res.status, 422, res.text);
        assert.deepEqual(Object.keys(res.error.errors), ['program_settings.referral_pending_days']);
      }
    });
  },
  { clock },
);

describeEachDatabase(
  'fraud rules on newsletter referrals',
  (server) => {
    const flagged = async (p: TestProgram<'newsletter'>, referrer: string, email: string) => {
      const res = await server().request('POST', '/v1/subscribers', {
        token: p.token,
        body: { email, referral: { id: referrer }, context: { ip: '203.0.113.5' } },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.is_referred, true);
      assert.deepEqual(res.body.data.fraud?.rules, [{ rule: 'disposable_email', action: 'flag' }]);
      return { id: String(res.body.data.id), flag: String(res.body.data.fraud?.flags[0]) };
    };

    test('disposable_email flag: the referral counts for no one until cleared; confirmed, never', async () => {
      const { p, referrer } = await program(server(), 0);
      const first = await flagged(p, referrer, 'x1@mailinator.com');
      clock.advance(30 * DAY);
      assert.deepEqual(await referrerOf(server(), p, referrer), { count: 0, milestones: 0 });
      const cleared = await server().request('POST', `/v1/fraud/flags/${first.flag}/clear`, {
        token: p.token,
      });
      assert.equal(cleared.status, 200, cleared.text);
      assert.deepEqual(await referrerOf(server(), p, referrer), { count: 1, milestones: 1 });
      const second = await flagged(p, referrer, 'x2@mailinator.com');
      const confirmed = await server().request('POST', `/v1/fraud/flags/${second.flag}/confirm`, {
        token: p.token,
        body: {},
      });
      assert.equal(confirmed.status, 200, confirmed.text);
      clock.advance(DAY);
      assert.equal((await referrerOf(server(), p, referrer)).count, 1);
    });

    test('disposable_email block: the subscriber is created without its referrer; bad context is a 422', async () => {
      const { p, referrer } = await program(server(), 0);
      const put = await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { program_settings: { fraud_rules: { disposable_email: 'block' } } },
      });
      assert.equal(put.status, 200, put.text);
      const res = await server().request('POST', '/v1/subscribers', {
        token: p.token,
        body: { email: 'y@yopmail.com', referral: { id: referrer } },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.is_referred, false);
      assert.equal(res.body.data.fraud?.blocked, true);
      assert.equal((await referrerOf(server(), p, referrer)).count, 0);
      const bad = await server().request('POST', '/v1/subscribers', {
        token: p.token,
        body: { email: 'z@example.com', referral: { id: referrer }, context: { click_id: 'c'.repeat(256) } },
      });
      assert.equal(bad.status, 422, bad.text);
      assert.deepEqual(Object.keys(bad.error.errors), ['context.click_id']);
    });
  },
  { clock },
);
