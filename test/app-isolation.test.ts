import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer, testDialects } from './harness.ts';

/** Two apps built in one process (as every test file does) share no state. */
for (const dialect of testDialects()) {
  describe(`two apps in one process [${dialect}]`, () => {
    let withExtra: TestServer;
    let plain: TestServer;
    before(async () => {
      withExtra = await startServer({
        dialect,
        routes: (app) => {
          app.get('/only-in-one-app', { config: { auth: 'public' } }, async () => ({ status: 1 }));
        },
      });
      plain = await startServer({ dialect });
    });
    after(async () => {
      await withExtra?.close();
      await plain?.close();
    });

    test('each app has its own route table: a route of one is unknown to the other', async () => {
      const has = (server: TestServer) =>
        server.app.routeTable.entries.some((route) => route.url === '/only-in-one-app');
      assert.equal(has(withExtra), true);
      assert.equal(has(plain), false);
      const wrongMethod = await withExtra.request('POST', '/only-in-one-app');
      assert.equal(wrongMethod.status, 405, wrongMethod.text);
      assert.equal(wrongMethod.headers.get('allow'), 'GET');
      const elsewhere = await plain.request('POST', '/only-in-one-app');
      assert.equal(elsewhere.status, 404, elsewhere.text);
    });

    test('each app has its own webhook sender', () => {
      assert.notEqual(withExtra.deps.webhookSender, plain.deps.webhookSender);
    });
  });
}
