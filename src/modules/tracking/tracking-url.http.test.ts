import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { signUpPartner } from '../../../test/portal-client.ts';
import { clickTrackerOf } from './tracking.service.ts';

const PUBLIC_URL = 'https://vouch.example.com';
const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131 Safari/537.36';

/**
 * A link's `tracking_url` is Vouch's own `/r/{program}/{key}`: it counts the click without the
 * tracking script on the website, and the portal shows it as the partner's main link.
 */
describeEachDatabase(
  'tracking_url: the link that counts without the script',
  (server) => {
    test('links of partners and customers carry tracking_url, which counts the click and redirects', async () => {
      const p = await server().newProgram('affiliate', { website: 'https://shop.example.com' });
      const partner = await server().request('POST', '/v1/partners', {
        token: p.token,
        body: { email: 'pat@example.com', key: 'pat-link' },
      });
      assert.equal(partner.status, 201, partner.text);
      const links = await server().request('GET', `/v1/partners/${partner.body.data.id}/referral_links`, {
        token: p.token,
      });
      assert.equal(links.status, 200, links.text);
      const link = itemAt(links.body.data);
      assert.equal(link.url, 'https://shop.example.com?aff=pat-link');
      assert.equal(link.tracking_url, `${PUBLIC_URL}/r/${p.publicId}/pat-link`);
      const one = await server().request('GET', '/v1/partner_referral_links/pat-link', { token: p.token });
      assert.equal(one.body.data.tracking_url, link.tracking_url);

      const followed = await server().request('GET', new URL(link.tracking_url).pathname, {
        headers: { 'user-agent': BROWSER },
      });
      assert.equal(followed.status, 302);
      assert.match(followed.headers.get('location') ?? '', /^https:\/\/shop\.example\.com/);
      await clickTrackerOf(server().deps).flush();
      const fetched = await server().request('GET', `/v1/partners/${partner.body.data.id}`, {
        token: p.token,
      });
      assert.equal(fetched.body.data.referrals.clicks, 1);

      const r = await server().newProgram('referral');
      await server().request('POST', '/v1/customers', {
        token: r.token,
        body: { id: 'ann', email: 'ann@example.com' },
      });
      const customerLinks = await server().request('GET', '/v1/customers/ann/referral_links', {
        token: r.token,
      });
      assert.equal(customerLinks.status, 200, customerLinks.text);
      assert.match(
        itemAt(customerLinks.body.data).tracking_url,
        new RegExp(`^${PUBLIC_URL}/r/${r.publicId}/`),
      );
    });

    test("the portal's main link is the tracking link; the website link is offered beside it", async () => {
      const p = await server().newProgram('affiliate', { website: 'https://shop.example.com' });
      const { client } = await signUpPartner(server, `/p/${p.publicId}`, 'jo@example.com');
      const partner = itemAt(
        (await server().request('GET', '/v1/partners?limit=1', { token: p.token })).body.data,
      );
      const dashboard = await client.get(`/p/${p.publicId}/dashboard`);
      assert.equal(dashboard.status, 200);
      const main =
        /<label for="link-0">Main link<\/label><div class="copy"><input id="link-0" type="url" readonly value="([^"]+)"/.exec(
          dashboard.text,
        );
      assert.ok(main, dashboard.text);
      assert.match(main[1] ?? '', new RegExp(`^${PUBLIC_URL}/r/${p.publicId}/`));
      const full = (await server().request('GET', `/v1/partners/${partner.id}`, { token: p.token })).body
        .data;
      assert.ok(dashboard.text.includes(`value="${full.referral_link}"`), 'the website link, second');
    });
  },
  { env: { PUBLIC_URL } },
);
