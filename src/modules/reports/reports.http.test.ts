import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import {
  describeEachDatabase,
  ManualClock,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { bucketOf } from '../../core/report-buckets.ts';
import { addDays, formatTimestamp } from '../../core/time.ts';
import { addDailyCounterDeltas } from '../counters/counters.repository.ts';
import { recordProgramActivity } from '../program/program.service.ts';

const clock = new ManualClock();

type Seeded = {
  p: TestProgram<'affiliate'>;
  partners: Record<'pa' | 'pb', { id: string; row: number; link: string; linkId: number }>;
};

/**
 * An affiliate program over about seven weeks around a month end: partners `pa` and `pb`, buyers
 * of each and one of nobody, sales in two currencies on many days, a partial and a full refund,
 * a deleted sale and a deleted customer, and clicks on some days.
 */
async function seed(server: TestServer): Promise<Seeded> {
  clock.set('2026-01-20T10:00:00.000Z');
  const p = await server.newProgram('affiliate');
  const call = async <const M extends string, const P extends string>(method: M, path: P, body?: unknown) => {
    const res = await server.request(method, path, { token: p.token, body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.text}`);
    return res.body;
  };
  await call('PUT', '/v1/program', { program_settings: { commission: { type: 'percent', value: 10 } } });
  const db = server.deps.database.db;
  const partner = async (key: 'pa' | 'pb') => {
    const created = await call('POST', '/v1/partners', { email: `${key}@example.com`, key });
    const row = await db
      .selectFrom('partners')
      .select('id')
      .where('public_id', '=', created.data.id)
      .executeTakeFirstOrThrow();
    const link = await db
      .selectFrom('referral_links')
      .select(['id', 'key'])
      .where('partner_id', '=', row.id)
      .executeTakeFirstOrThrow();
    return { id: created.data.id, row: Number(row.id), link: link.key, linkId: Number(link.id) };
  };
  const partners: Seeded['partners'] = { pa: await partner('pa'), pb: await partner('pb') };
  let sale = 0;
  for (let day = 0; day < 45; day++) {
    clock.set(`${addDays('2026-01-20', day)}T${String((day * 7) % 24).padStart(2, '0')}:30:00.000Z`);
    const buyer = itemAt(['c-pa', 'c-pb', 'c-pa2'], day % 3);
    if (day < 3) {
      await call('POST', '/v1/customers', { key: buyer, partner: { key: buyer.slice(2, 4) } });
    }
    if (day % 4 === 1) await call('POST', '/v1/customers', { key: `extra-${day}`, partner: { key: 'pa' } });
    if (day % 2 === 0) {
      sale++;
      await call('POST', '/v1/transactions', {
        key: `s${sale}`,
        amount: `${10 + day}.25`,
        amount_units: day % 5 === 0 ? 'EUR' : 'USD',
        action: 'sale',
        customer: { key: buyer },
      });
    }
    if (day % 3 === 0) {
      await recordProgramActivity(db, p.id, formatTimestamp(clock.nowMicros()), { clicks: day + 1 });
      await addDailyCounterDeltas(db, p.id, formatTimestamp(clock.nowMicros()).slice(0, 10), [
        { kind: 'partner', id: partners.pa.row, metric: 'clicks', value: 2 },
        { kind: 'link', id: partners.pa.linkId, metric: 'clicks', value: 2 },
      ]);
    }
  }
  await call('POST', '/v1/transactions/s2/refund', { amount: 3 });
  await call('POST', '/v1/transactions/s5/refund', {});
  await call('DELETE', '/v1/transactions/s7');
  await call('DELETE', '/v1/customers/extra-9');
  return { p, partners };
}

type Filter = { partner?: number; link?: number };

/** Every figure of the report recounted from the rows, per UTC day. */
async function recount(server: TestServer, p: TestProgram<'affiliate'>, filter: Filter) {
  const db = server.deps.database.db;
  const customers = await db.selectFrom('customers').selectAll().where('program_id', '=', p.id).execute();
  const linkOf = new Map(
    customers.map((c) => [Number(c.id), c.referral_link_id === null ? null : Number(c.referral_link_id)]),
  );
  const keep = (partnerId: number | null, customerId: number) =>
    (filter.partner === undefined || partnerId === filter.partner) &&
    (filter.link === undefined || linkOf.get(customerId) === filter.link);
  const live = customers.filter(
    (c) => c.deleted_at === null && keep(c.partner_id === null ? null : Number(c.partner_id), Number(c.id)),
  );
  const sales = (
    await db.selectFrom('transactions').selectAll().where('program_id', '=', p.id).execute()
  ).filter(
    (t) =>
      t.deleted_at === null &&
      t.archived_at === null &&
      keep(t.partner_id === null ? null : Number(t.partner_id), Number(t.customer_id)),
  );
  const saleOf = new Map(sales.map((t) => [Number(t.id), t]));
  const rewards = (
    await db.selectFrom('rewards').selectAll().where('program_id', '=', p.id).execute()
  ).filter(
    (r) =>
      r.deleted_at === null &&
      !['denied', 'voided', 'rejected'].includes(r.status) &&
      r.partner_id !== null &&
      (filter.partner === undefined || Number(r.partner_id) === filter.partner) &&
      (filter.link === undefined || (r.transaction_id !== null && saleOf.has(Number(r.transaction_id)))),
  );
  return { customers: live, sales, rewards };
}

async function expectedSeries(
  server: TestServer,
  p: TestProgram<'affiliate'>,
  filter: Filter,
  interval: 'day' | 'week' | 'month',
  start: string,
  end: string,
) {
  const rows = await recount(server, p, filter);
  const inRange = (at: string) => at.slice(0, 10) >= start && at.slice(0, 10) <= end;
  const bucket = (at: string) => bucketOf(at.slice(0, 10), interval);
  const add = (map: Map<string, number>, key: string, by: number) => map.set(key, (map.get(key) ?? 0) + by);
  const signups = new Map<string, number>();
  const customers = new Map<string, number>();
  for (const c of rows.customers.filter((c) => inRange(c.created_at))) {
    add(customers, bucket(c.created_at), 1);
    if (c.partner_id !== null) add(signups, bucket(c.created_at), 1);
  }
  const sales = new Map<string, number>();
  const buyers = new Map<string, Set<number>>();
  const money = (list: { at: string; currency: string; micros: bigint }[]) => {
    const sums = new Map<string, bigint>();
    for (const item of list)
      sums.set(
        `${bucket(item.at)}|${item.currency}`,
        (sums.get(`${bucket(item.at)}|${item.currency}`) ?? 0n) + item.micros,
      );
    return sums;
  };
  for (const t of rows.sales.filter((t) => inRange(t.created_at))) {
    add(sales, bucket(t.created_at), 1);
    const set = buyers.get(bucket(t.created_at)) ?? new Set();
    buyers.set(bucket(t.created_at), set.add(Number(t.customer_id)));
  }
  const revenue = money(
    rows.sales
      .filter((t) => inRange(t.created_at))
      .map((t) => ({
        at: t.created_at,
        currency: String(t.amount_units),
        micros: BigInt(t.amount) - BigInt(t.refunded_amount ?? 0),
      })),
  );
  const commissions = money(
    rows.rewards
      .filter((r) => inRange(r.created_at))
      .map((r) => ({ at: r.created_at, currency: r.amount_units, micros: BigInt(r.amount) })),
  );
  const currencies = (sums: Map<string, bigint>) =>
    [...new Set([...sums.keys()].map((k) => itemAt(k.split('|'), 1)))].sort();
  const toMoney = (sums: Map<string, bigint>, date: string) =>
    Object.fromEntries(currencies(sums).map((c) => [c, Number(sums.get(`${date}|${c}`) ?? 0n) / 1e6]));
  const dates: string[] = [];
  for (let day = start; day <= end; day = addDays(day, 1))
    if (!dates.includes(bucket(day))) dates.push(bucket(day));
  return dates.map((date) => ({
    date,
    signups: signups.get(date) ?? 0,
    customers: customers.get(date) ?? 0,
    paying_customers: buyers.get(date)?.size ?? 0,
    sales: sales.get(date) ?? 0,
    revenue: toMoney(revenue, date),
    commissions: toMoney(commissions, date),
  }));
}

describeEachDatabase(
  'reports',
  (server) => {
    let seeded: Seeded;
    const get = <const P extends string>(path: P, p = seeded.p) =>
      server().request('GET', path, { token: p.token });
    before(async () => {
      seeded = await seed(server());
    });

    for (const interval of ['day', 'week', 'month'] as const) {
      test(`the ${interval} series of every metric matches a recount of the rows, whole program, per partner and per link`, async () => {
        const { p, partners } = seeded;
        const [start, end] = ['2026-01-22', '2026-03-01'];
        const metrics = 'signups,customers,paying_customers,sales,revenue,commissions';
        const filters: [string, Filter][] = [
          ['', {}],
          [`&partner=${partners.pa.id}`, { partner: partners.pa.row }],
          ['&partner=pb', { partner: partners.pb.row }],
          [`&link=${partners.pa.link}`, { link: partners.pa.linkId }],
        ];
        for (const [query, filter] of filters) {
          const res = await get(
            `/v1/reports/timeseries?metrics=${metrics}&interval=${interval}&start=${start}&end=${end}${query}`,
          );
          assert.equal(res.status, 200, res.text);
          assert.deepEqual(res.body.meta, {
            interval,
            start,
            end,
            timezone: 'UTC',
            metrics: metrics.split(','),
          });
          assert.deepEqual(
            res.body.data,
            await expectedSeries(server(), p, filter, interval, start, end),
            query,
          );
          assert.ok(
            res.body.data.some((point: { sales: number }) => point.sales > 0),
            'the range has sales',
          );
        }
      });
    }

    test('clicks come from the per-day counters, program-wide and per partner, zeros included', async () => {
      const res = await get('/v1/reports/timeseries?metrics=clicks&start=2026-01-20&end=2026-01-26');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.data.map((point) => point.clicks),
        [1, 0, 0, 4, 0, 0, 7],
      );
      const partner = await get(
        `/v1/reports/timeseries?metrics=clicks&start=2026-01-20&end=2026-01-26&partner=pa`,
      );
      assert.deepEqual(
        partner.body.data.map((point) => point.clicks),
        [2, 0, 0, 2, 0, 0, 2],
      );
    });

    test('a currency keeps one money figure; without one, every currency of the range, zeros included', async () => {
      const res = await get(
        '/v1/reports/timeseries?metrics=revenue&start=2026-01-20&end=2026-01-22&currency=usd',
      );
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data, [
        { date: '2026-01-20', revenue: { USD: 0 } },
        { date: '2026-01-21', revenue: { USD: 0 } },
        { date: '2026-01-22', revenue: { USD: 9.25 } },
      ]);
      const all = await get('/v1/reports/timeseries?metrics=revenue&start=2026-01-20&end=2026-01-22');
      assert.deepEqual(all.body.data[0], { date: '2026-01-20', revenue: { EUR: 10.25, USD: 0 } });
    });

    test('weeks start on Monday and months on the first, across a month end', async () => {
      const res = await get(
        '/v1/reports/timeseries?metrics=sales&interval=week&start=2026-01-28&end=2026-02-03',
      );
      assert.deepEqual(
        res.body.data.map((point: { date: string }) => point.date),
        ['2026-01-26', '2026-02-02'],
      );
      const months = await get(
        '/v1/reports/timeseries?metrics=sales&interval=month&start=2026-01-31&end=2026-03-01',
      );
      assert.deepEqual(
        months.body.data.map((point: { date: string }) => point.date),
        ['2026-01-01', '2026-02-01', '2026-03-01'],
      );
    });

    test('top partners by revenue, sales, signups and commissions match a recount', async () => {
      const { partners } = seeded;
      const rows = await recount(server(), seeded.p, {});
      const byPartner = (list: { partner_id: number | null }[], value: (item: never) => bigint | number) => {
        const sums = new Map<number, number>();
        for (const item of list)
          if (item.partner_id !== null)
            sums.set(
              Number(item.partner_id),
              (sums.get(Number(item.partner_id)) ?? 0) + Number(value(item as never)),
            );
        return sums;
      };
      const idOf = new Map(Object.values(partners).map((p) => [p.row, p.id]));
      const ranked = (sums: Map<number, number>, scale = 1) =>
        [...sums]
          .sort((a, b) => b[1] - a[1] || a[0] - b[0])
          .map(([row, value]) => ({ id: idOf.get(row), value: value / scale }));
      const usdSales = rows.sales.filter((t) => t.amount_units === 'USD');
      const cases: [string, { id: string | undefined; value: number }[]][] = [
        [
          'metric=revenue&currency=USD',
          ranked(
            byPartner(
              usdSales,
              (t: { amount: bigint; refunded_amount: bigint | null }) =>
                BigInt(t.amount) - BigInt(t.refunded_amount ?? 0),
            ),
            1e6,
          ),
        ],
        ['metric=sales', ranked(byPartner(rows.sales, () => 1))],
        ['metric=signups', ranked(byPartner(rows.customers, () => 1))],
        [
          'metric=commissions&currency=EUR',
          ranked(
            byPartner(
              rows.rewards.filter((r) => r.amount_units === 'EUR'),
              (r: { amount: bigint }) => r.amount,
            ),
            1e6,
          ),
        ],
      ];
      for (const [query, expected] of cases) {
        const res = await get(`/v1/reports/top?by=partners&${query}&start=2026-01-01&end=2026-03-31`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(
          res.body.data.map(({ id, value }: { id: string; value: number }) => ({ id, value })),
          expected,
          query,
        );
        assert.ok(expected.length > 0);
      }
      const first = await get(
        '/v1/reports/top?by=partners&metric=sales&start=2026-01-01&end=2026-03-31&limit=1',
      );
      assert.deepEqual(
        first.body.data.map((row) => row.key),
        [Object.values(partners).find((partner) => partner.id === itemAt(first.body.data).id)?.link],
      );
      const clicks = await get('/v1/reports/top?by=links&metric=clicks&start=2026-01-01&end=2026-03-31');
      assert.deepEqual(clicks.body.data, [
        { id: partners.pa.link, key: partners.pa.link, name: null, value: 30 },
      ]);
    });

    test('the program time zone puts figures from rows in its local days', async () => {
      const p = await server().newProgram('affiliate');
      const put = await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { program_settings: { timezone: 'America/New_York' } },
      });
      assert.equal(put.status, 200, put.text);
      clock.set('2026-03-09T03:30:00.000Z'); // 23:30 on 8 March in New York (EDT from 8 March)
      for (const [path, body] of [
        ['/v1/partners', { email: 'tz@example.com', key: 'tzp' }],
        ['/v1/customers', { key: 'tz-buyer', partner: { key: 'tzp' } }],
      ] as const) {
        const res = await server().request('POST', path, { token: p.token, body });
        assert.equal(res.status, 201, res.text);
      }
      const sale = await server().request('POST', '/v1/transactions', {
        token: p.token,
        body: { key: 'tz1', amount: 5, amount_units: 'USD', action: 'sale', customer: { key: 'tz-buyer' } },
      });
      assert.equal(sale.status, 200, sale.text);
      const res = await get(
        '/v1/reports/timeseries?metrics=sales,customers&start=2026-03-08&end=2026-03-09',
        p,
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.meta.timezone, 'America/New_York');
      assert.deepEqual(res.body.data, [
        { date: '2026-03-08', sales: 1, customers: 1 },
        { date: '2026-03-09', sales: 0, customers: 0 },
      ]);
      const top = await get('/v1/reports/top?by=links&metric=sales&start=2026-03-09&end=2026-03-09', p);
      assert.deepEqual(top.body.data, []);
    });

    test('bad input is a 422 naming the field', async () => {
      const other = await server().newProgram('affiliate');
      await server().request('POST', '/v1/partners', {
        token: other.token,
        body: { email: 'x@example.com', key: 'other-partner' },
      });
      const cases: [string, string][] = [
        ['metrics=clicks,bogus', 'metrics'],
        ['metrics=subscribers', 'metrics'],
        ['interval=year', 'interval'],
        ['start=2026-02-10&end=2026-02-01', 'end'],
        ['start=2020-01-01&end=2026-01-01', 'end'],
        ['start=2026-02-30', 'start'],
        ['end=yesterday', 'end'],
        ['partner=other-partner', 'partner'],
        ['link=other-partner', 'link'],
        ['customer=nobody', 'customer'],
        ['currency=dollars', 'currency'],
      ];
      for (const [query, field] of cases) {
        const res = await get(`/v1/reports/timeseries?${query}`);
        assert.equal(res.status, 422, `${query}: ${res.text}`);
        assert.ok(
          Object.keys(res.error.errors).some((key) => key === field || key.endsWith(`.${field}`)),
          `${query}: ${res.text}`,
        );
      }
      const topCases: [string, string][] = [
        ['by=partners&metric=revenue', 'currency'],
        ['by=partners&metric=commissions', 'currency'],
        ['by=everyone&metric=sales', 'by'],
        ['by=partners&metric=fame', 'metric'],
        ['by=referrers&metric=sales', 'by'],
        ['by=promotion_codes&metric=revenue&currency=USD', 'metric'],
        ['by=partners&metric=sales&limit=101', 'limit'],
      ];
      for (const [query, field] of topCases) {
        const res = await get(`/v1/reports/top?${query}`);
        assert.equal(res.status, 422, `${query}: ${res.text}`);
        assert.ok(
          Object.keys(res.error.errors).some((key) => key === field || key.endsWith(`.${field}`)),
          `${query}: ${res.text}`,
        );
      }
      const zone = await server().request('PUT', '/v1/program', {
        token: other.token,
        body: { program_settings: { timezone: 'Mars/Olympus' } },
      });
      assert.equal(zone.status, 422, zone.text);
      assert.ok('program_settings.timezone' in zone.error.errors, zone.text);
    });
  },
  { clock },
);
