import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commissionProgram, commissionsOf, figuresOf, recount } from '../../../test/commission-factories.ts';
import {
  describeEachDatabase,
  ManualClock,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { clickTrackerOf } from '../tracking/tracking.service.ts';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131';
const clock = new ManualClock();

/** A click the tracking script reports on partner `key`'s link, written at once; answers its id. */
async function click(server: TestServer, p: TestProgram, key: string, url?: string): Promise<string> {
  const res = await server.request('POST', '/t/click', {
    body: JSON.stringify({ program: p.publicId, key, ...(url !== undefined ? { url } : {}) }),
    headers: { 'content-type': 'text/plain', 'user-agent': `${BROWSER} ${Math.random()}` },
  });
  assert.equal(res.status, 200, res.text);
  await clickTrackerOf(server.deps).flush();
  return res.body.data.click_id ?? '';
}

const setRules = async (server: TestServer, p: TestProgram, settings: Record<string, unknown>) => {
  const put = await server.request('PUT', '/v1/program', {
    token: p.token,
    body: { program_settings: settings },
  });
  assert.equal(put.status, 200, put.text);
};

const signup = (server: TestServer, p: TestProgram<'affiliate'>, key: string, clickId: string) =>
  server.request('POST', '/v1/customers', {
    token: p.token,
    body: { key, partner: { key: 'pa' }, context: { click_id: clickId } },
  });

const saleWithClick = (server: TestServer, p: TestProgram<'affiliate'>, key: string, clickId: string) =>
  server.request('POST', '/v1/transactions', {
    token: p.token,
    body: { key, amount: 100, action: 'sale', customer: { key: 'c-pa' }, context: { click_id: clickId } },
  });

describeEachDatabase(
  'fraud rules from clicks (click ids, landing URLs)',
  (server) => {
    test('a click keeps its landing URL; /r/{key} keeps its own query string and sets vouch_click', async () => {
      const { p } = await commissionProgram(server());
      const id = await click(server(), p, 'pa', 'https://shop.example.com/?aff=pa&gclid=G1#top');
      const db = server().deps.database.db;
      const stored = await db.selectFrom('clicks').selectAll().where('public_id', '=', id).executeTakeFirst();
      assert.equal(stored?.landing_url, 'https://shop.example.com/?aff=pa&gclid=G1');
      assert.equal(Number(stored?.program_id), p.id);
      const followed = await server().request('GET', '/r/pa?fbclid=F1', {
        headers: { 'user-agent': `${BROWSER} r` },
      });
      assert.equal(followed.status, 302);
      const cookies = followed.headers.get('set-cookie') ?? '';
      const clickId = /vouch_click=([A-Za-z0-9_-]+);/.exec(cookies)?.[1] ?? '';
      assert.match(clickId, /^[A-Za-z0-9_-]{12}$/);
      await clickTrackerOf(server().deps).flush();
      const viaLink = await db
        .selectFrom('clicks')
        .select('landing_url')
        .where('public_id', '=', clickId)
        .executeTakeFirst();
      assert.match(viaLink?.landing_url ?? '', /\/r\/pa\?fbclid=F1$/);
    });

    test('paid_ads: a signup whose click landed with gclid is flagged, or blocked', async () => {
      const { p, partners } = await commissionProgram(server(), { paid_ads_allowed: false });
      const ad = await click(server(), p, 'pa', 'https://shop.example.com/?aff=pa&gclid=G1');
      const flagged = await signup(server(), p, 'c-ad', ad);
      assert.equal(flagged.status, 201, flagged.text);
      assert.deepEqual(flagged.body.data.fraud?.rules, [{ rule: 'paid_ads', action: 'flag' }]);
      assert.equal(flagged.body.data.partner, partners.pa);
      const flag = itemAt(flagged.body.data.fraud?.flags ?? []);
      const read = await server().request('GET', `/v1/fraud/flags/${flag}`, { token: p.token });
      assert.deepEqual(read.body.data.evidence, { parameters: ['gclid'] });
      // An organic click, or another partner's click, fires nothing.
      const organic = await click(server(), p, 'pa', 'https://shop.example.com/?aff=pa');
      assert.equal((await signup(server(), p, 'c-organic', organic)).body.data.fraud, undefined);
      const other = await click(server(), p, 'pb', 'https://shop.example.com/?aff=pb&msclkid=M');
      assert.equal((await signup(server(), p, 'c-other', other)).body.data.fraud, undefined);
      // Allowed paid ads: silent; block: no partner.
      await setRules(server(), p, { paid_ads_allowed: true });
      assert.equal((await signup(server(), p, 'c-allowed', ad)).body.data.fraud, undefined);
      await setRules(server(), p, { paid_ads_allowed: false, fraud_rules: { paid_ads: 'block' } });
      const blocked = await signup(server(), p, 'c-blocked', ad);
      assert.equal(blocked.status, 201, blocked.text);
      assert.equal(blocked.body.data.partner, null);
      assert.equal(blocked.body.data.fraud?.blocked, true);
    });

    test('fast_conversion flag: a sale seconds after its click is held on a transaction flag; clear releases it', async () => {
      const { p, partners } = await commissionProgram(server(), {
        fraud_rules: { fast_conversion: 'flag' },
        fast_conversion_seconds: 30,
      });
      const id = await click(server(), p, 'pa', 'https://shop.example.com/?aff=pa');
      clock.advance(5_000);
      const quick = await saleWithClick(server(), p, 'quick', id);
      assert.equal(quick.status, 200, quick.text);
      const held = itemAt(await commissionsOf(server(), p, '&transaction=quick'));
      assert.equal(held.status, 'pending');
      assert.notEqual(held.fraud_flag, null);
      const flag = await server().request('GET', `/v1/fraud/flags/${held.fraud_flag}`, { token: p.token });
      assert.equal(flag.status, 200, flag.text);
      assert.equal(flag.body.data.rule, 'fast_conversion');
      assert.equal(flag.body.data.subject.type, 'transaction');
      assert.equal(flag.body.data.subject.id, 'quick');
      assert.deepEqual(flag.body.data.evidence, { seconds_after_click: 5, limit: 30 });
      // The answer names the rule and the flag, as a customer's create does.
      assert.deepEqual(quick.body.data.fraud, {
        blocked: false,
        rules: [{ rule: 'fast_conversion', action: 'flag' }],
        flags: [held.fraud_flag],
      });
      // A replay answers the stored sale, which never shows it.
      const replay = await saleWithClick(server(), p, 'quick', id);
      assert.equal(replay.status, 200, replay.text);
      assert.equal(replay.body.data.fraud, undefined);
      assert.deepEqual(await figuresOf(server(), p, partners.pa), await recount(server(), p, partners.pa));
      // Past the limit, the same click fires nothing.
      clock.advance(60_000);
      const slow = await saleWithClick(server(), p, 'slow', id);
      assert.equal(slow.body.data.fraud, undefined);
      assert.equal(itemAt(await commissionsOf(server(), p, '&transaction=slow')).fraud_flag, null);
      const cleared = await server().request('POST', `/v1/fraud/flags/${held.fraud_flag}/clear`, {
        token: p.token,
      });
      assert.equal(cleared.status, 200, cleared.text);
      const released = itemAt(await commissionsOf(server(), p, '&transaction=quick'));
      assert.equal(released.fraud_flag, null);
      assert.deepEqual(await figuresOf(server(), p, partners.pa), await recount(server(), p, partners.pa));
    });

    test('fast_conversion block: the sale is stored and earns nothing; an unknown click id fires nothing', async () => {
      const { p, partners } = await commissionProgram(server(), {
        fraud_rules: { fast_conversion: 'block' },
        fast_conversion_seconds: 30,
      });
      const id = await click(server(), p, 'pa', 'https://shop.example.com/');
      const blocked = await saleWithClick(server(), p, 'blocked', id);
      assert.equal(blocked.status, 200, blocked.text);
      assert.deepEqual(await commissionsOf(server(), p, '&transaction=blocked'), []);
      assert.deepEqual(blocked.body.data.fraud, {
        blocked: true,
        rules: [{ rule: 'fast_conversion', action: 'block' }],
        flags: [],
      });
      assert.deepEqual(blocked.body.data.rewards, []);
      const unknown = await saleWithClick(server(), p, 'unknown', 'NoSuchClick1');
      assert.equal(unknown.status, 200, unknown.text);
      assert.equal(unknown.body.data.fraud, undefined);
      assert.equal((await commissionsOf(server(), p, '&transaction=unknown')).length, 1);
      // Another partner's click says nothing about this sale.
      const other = await click(server(), p, 'pb', 'https://shop.example.com/');
      await saleWithClick(server(), p, 'other', other);
      assert.equal((await commissionsOf(server(), p, '&transaction=other')).length, 1);
      assert.deepEqual(await figuresOf(server(), p, partners.pa), await recount(server(), p, partners.pa));
    });

    test('bad input: a landing url that is not an absolute http(s) URL, a click id too long', async () => {
      const { p } = await commissionProgram(server());
      for (const url of ['not a url', 'javascript:alert(1)', `https://x.example/?q=${'a'.repeat(2100)}`]) {
        const res = await server().request('POST', '/t/click', {
          body: { program: p.publicId, key: 'pa', url },
          headers: { 'user-agent': BROWSER },
        });
        assert.equal(res.status, 422, res.text);
        assert.deepEqual(Object.keys(res.error.errors), ['url']);
      }
      const long = await saleWithClick(server(), p, 'long', 'x'.repeat(256));
      assert.equal(long.status, 422, long.text);
      assert.deepEqual(Object.keys(long.error.errors), ['context.click_id']);
    });
  },
  { clock },
);
