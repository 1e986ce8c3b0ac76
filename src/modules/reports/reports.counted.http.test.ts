import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import {
  describeEachDatabase,
  ManualClock,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { addDays } from '../../core/time.ts';

const clock = new ManualClock();

/** What the comparisons read of an answer (paths are built at run time, so the reply is untyped). */
type Answer = { data: unknown; meta?: { timezone: string } };

/**
 * A UTC program's reports read the per-day counters (ADR 0123); the same program set to `Etc/GMT`
 * (always UTC, but not named UTC) reads the rows. Both must answer the same, for every metric,
 * interval, filter and ranking, including a currency whose figures net to zero, a partner whose
 * sales were all refunded, deletes and a clawback.
 */
async function seed(server: TestServer) {
  clock.set('2026-02-20T09:00:00.000Z');
  const p = await server.newProgram('affiliate');
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await server.request(method, path, { token: p.token, body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.text}`);
    return res.body;
  };
  await call('PUT', '/v1/program', { program_settings: { commission: { type: 'percent', value: 20 } } });
  for (const key of ['pa', 'pb', 'pc']) {
    await call('POST', '/v1/partners', { email: `${key}@example.com`, key });
    await call('POST', '/v1/customers', { key: `c-${key}`, partner: { key } });
  }
  for (let day = 0; day < 40; day++) {
    clock.set(`${addDays('2026-02-20', day)}T${String((day * 5) % 24).padStart(2, '0')}:10:00.000Z`);
    const buyer = day % 3 === 1 ? 'c-pb' : 'c-pa';
    await call('POST', '/v1/transactions', {
      key: `s${day}`,
      amount: `${5 + day}.5`,
      amount_units: 'USD',
      action: 'sale',
      customer: { key: buyer },
    });
    if (day % 7 === 3) await call('POST', '/v1/customers', { key: `x${day}`, partner: { key: 'pa' } });
  }
  // A partner whose only sale is refunded in full, in a currency nobody else uses: zero figures.
  await call('POST', '/v1/transactions', {
    key: 'gbp',
    amount: 30,
    amount_units: 'GBP',
    action: 'sale',
    customer: { key: 'c-pc' },
  });
  await call('POST', '/v1/transactions', {
    key: 'paid',
    amount: 80,
    action: 'sale',
    rewarded: true,
    customer: { key: 'c-pb' },
  });
  await call('POST', '/v1/transactions/gbp/refund', {});
  await call('POST', '/v1/transactions/paid/refund', { amount: 20 });
  await call('POST', '/v1/transactions/s4/refund', { amount: 2 });
  await call('DELETE', '/v1/transactions/s7');
  await call('DELETE', '/v1/customers/x10');
  return p;
}

describeEachDatabase(
  'reports from counters and from rows',
  (server) => {
    let p: TestProgram<'affiliate'>;
    const get = async (path: string): Promise<Answer> => {
      const res = await server().request('GET', path, { token: p.token });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return res.body as Answer;
    };
    const zone = async (timezone: string) => {
      const res = await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { program_settings: { timezone } },
      });
      assert.equal(res.status, 200, res.text);
    };
    /** Each path's answer in UTC (counters) and in Etc/GMT (rows). */
    const both = async (paths: string[]) => {
      await zone('UTC');
      const counted = [];
      for (const path of paths) counted.push(await get(path));
      await zone('Etc/GMT');
      const rows = [];
      for (const path of paths) rows.push(await get(path));
      await zone('UTC');
      return { counted, rows };
    };
    before(async () => {
      p = await seed(server());
    });

    test('every series, whole program and per partner, link or both, is the same read either way', async () => {
      const range = 'start=2026-02-16&end=2026-04-05';
      const metrics = 'metrics=signups,customers,paying_customers,sales,revenue,commissions';
      const paths: string[] = [];
      for (const interval of ['day', 'week', 'month'])
        for (const filter of ['', '&partner=pa', '&link=pa', '&partner=pb&link=pb', '&currency=GBP'])
          paths.push(`/v1/reports/timeseries?${metrics}&interval=${interval}&${range}${filter}`);
      const { counted, rows } = await both(paths);
      paths.forEach((path, i) => {
        assert.deepEqual(counted[i]?.data, rows[i]?.data, path);
        assert.equal(counted[i]?.meta?.timezone, 'UTC');
      });
      const whole = counted[0]?.data as { revenue: Record<string, number> }[];
      assert.ok(whole.some((point) => point.revenue.USD !== 0));
      assert.ok(
        whole.every((point) => !('GBP' in point.revenue)),
        'a currency whose figures are all zero is left out',
      );
      const gbp = counted[4]?.data as { revenue: Record<string, number> }[];
      assert.ok(
        gbp.every((point) => point.revenue.GBP === 0),
        'an asked-for currency stays, at zero',
      );
    });

    test('every ranking is the same read either way, and leaves out zero figures', async () => {
      const range = 'start=2026-02-01&end=2026-04-30';
      const paths: string[] = [];
      for (const by of ['partners', 'links'])
        for (const metric of [
          'signups',
          'sales',
          'revenue&currency=USD',
          'revenue&currency=GBP',
          'commissions&currency=USD',
        ])
          paths.push(`/v1/reports/top?by=${by}&metric=${metric}&limit=10&${range}`);
      const { counted, rows } = await both(paths);
      paths.forEach((path, i) => {
        assert.deepEqual(counted[i]?.data, rows[i]?.data, path);
      });
      assert.deepEqual(
        ((counted[1]?.data ?? []) as { key: string }[]).map((row) => row.key),
        ['pa', 'pb', 'pc'],
        'by sales',
      );
      assert.deepEqual(counted[3]?.data, [], 'a refunded partner has no GBP revenue to rank');
    });

    test('short ranges, where the best owner of all time sold little or nothing, rank the same', async () => {
      const paths: string[] = [];
      for (let day = 0; day < 6; day++)
        for (const limit of [1, 2])
          for (const metric of ['sales', 'revenue&currency=USD', 'signups'])
            paths.push(
              `/v1/reports/top?by=partners&metric=${metric}&limit=${limit}&start=${addDays('2026-02-20', day)}&end=${addDays('2026-02-21', day)}`,
            );
      const { counted, rows } = await both(paths);
      paths.forEach((path, i) => {
        assert.deepEqual(counted[i]?.data, rows[i]?.data, path);
      });
      const keys = (i: number) => ((counted[i]?.data ?? []) as { key: string }[]).map((row) => row.key);
      assert.deepEqual(keys(paths.indexOf(paths[0] ?? '')), ['pa'], 'both days: the leader of all time');
      const quiet = `/v1/reports/top?by=partners&metric=sales&limit=1&start=2026-02-21&end=2026-02-21`;
      const [alone] = (await both([quiet])).counted;
      assert.deepEqual(
        ((alone?.data ?? []) as { key: string }[]).map((row) => row.key),
        ['pb'],
        'a day only the second partner sold on',
      );

      // A new partner, last of all by its totals, is the only one to sell on a later day.
      clock.set('2026-05-10T10:00:00.000Z');
      for (const [path, body] of [
        ['/v1/partners', { email: 'pd@example.com', key: 'pd' }],
        ['/v1/customers', { key: 'c-pd', partner: { key: 'pd' } }],
        ['/v1/transactions', { key: 'late', amount: 3, action: 'sale', customer: { key: 'c-pd' } }],
      ] as const) {
        const res = await server().request('POST', path, { token: p.token, body });
        assert.ok(res.status < 300, res.text);
      }
      const late = ['sales', 'revenue&currency=USD', 'signups'].map(
        (metric) => `/v1/reports/top?by=partners&metric=${metric}&limit=1&start=2026-05-01&end=2026-05-31`,
      );
      const lateBoth = await both(late);
      late.forEach((path, i) => {
        assert.deepEqual(lateBoth.counted[i]?.data, lateBoth.rows[i]?.data, path);
        assert.deepEqual(
          ((lateBoth.counted[i]?.data ?? []) as { key: string }[]).map((row) => row.key),
          ['pd'],
          path,
        );
      });
    });
  },
  { clock },
);
