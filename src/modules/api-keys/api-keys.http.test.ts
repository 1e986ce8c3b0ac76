import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, ManualClock } from '../../../test/harness.ts';

const clock = new ManualClock();

describeEachDatabase(
  'API keys: the one-second cache follows the injected clock',
  (server) => {
    test('a revoked key answers until the cache lifetime passes on the clock, then 401', async () => {
      const p = await server().newProgram('affiliate');
      const key = await server().admin('POST', `/admin/v1/programs/${p.id}/api-keys`, { name: 'to revoke' });
      const token = key.body.data.token;
      assert.equal((await server().request('GET', '/v1/test', { token })).status, 200);
      assert.equal((await server().admin('DELETE', `/admin/v1/api-keys/${key.body.data.id}`)).status, 200);

      // Time stands still on the injected clock, however long the requests take in real time.
      clock.advance(999);
      const cached = await server().request('GET', '/v1/test', { token });
      assert.equal(cached.status, 200, 'within the cache lifetime the key still answers');

      clock.advance(2);
      const expired = await server().request('GET', '/v1/test', { token });
      assert.equal(expired.status, 401, expired.text);
    });
  },
  { clock },
);
