import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  ManualClock,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { locationOf, PageClient, signUpPartner } from '../../../test/portal-client.ts';
import { SESSION_DAYS } from '../../core/portal.ts';
import { createWorker } from '../../worker.ts';

const clock = new ManualClock();

/** How many sessions, one-time tokens and failure rows the program has. */
async function stored(server: TestServer, p: TestProgram) {
  const db = server.deps.database.db;
  const count = async (table: 'portal_sessions' | 'portal_tokens' | 'portal_sign_in_failures') =>
    (await db.selectFrom(table).select('program_id').where('program_id', '=', p.id).execute()).length;
  return {
    sessions: await count('portal_sessions'),
    tokens: await count('portal_tokens'),
    failures: await count('portal_sign_in_failures'),
  };
}

const signUp = async (server: () => TestServer, p: TestProgram, email: string) =>
  (await signUpPartner(server, `/p/${p.publicId}`, email)).client;

describeEachDatabase(
  'portal records expire',
  (server) => {
    test('the worker deletes expired sessions and links and forgotten failures; live ones stay and work', async () => {
      const p = await server().newProgram('affiliate');
      const dashboard = `/p/${p.publicId}/dashboard`;
      const early = await signUp(server, p, 'early@example.com');
      const stranger = new PageClient(server);
      const wrong = await stranger.submit(`/p/${p.publicId}/sign-in`, {
        email: 'early@example.com',
        password: 'Wrong1234',
      });
      assert.equal(wrong.status, 401);
      const forgot = await stranger.submit(`/p/${p.publicId}/forgot`, { email: 'early@example.com' });
      assert.equal(forgot.status, 200, forgot.text);
      assert.deepEqual(await stored(server(), p), { sessions: 1, tokens: 1, failures: 2 });

      // A day and a minute on: the link has expired and the failures are forgotten; the session lives.
      clock.advance((24 * 60 + 1) * 60_000);
      const worker = createWorker(server().deps);
      assert.equal((await worker.runOnce()).purged, 3);
      assert.deepEqual(await stored(server(), p), { sessions: 1, tokens: 0, failures: 0 });
      assert.equal((await early.get(dashboard)).status, 200);

      // Past the session's life: it goes, a newer one stays and still signs its partner in.
      clock.advance(SESSION_DAYS * 24 * 60 * 60_000);
      const late = await signUp(server, p, 'late@example.com');
      assert.equal((await worker.runOnce()).purged, 1);
      assert.deepEqual(await stored(server(), p), { sessions: 1, tokens: 0, failures: 0 });
      assert.equal((await late.get(dashboard)).status, 200);
      const expired = await early.get(dashboard);
      assert.equal(expired.status, 303);
      assert.equal(locationOf(expired), `/p/${p.publicId}/sign-in`);
      assert.equal((await worker.runOnce()).purged, 0, 'nothing left to delete');
    });
  },
  { clock },
);
