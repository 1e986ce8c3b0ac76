import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import { commissionProgram, commissionsOf, sell } from '../../../test/commission-factories.ts';
import {
  describeEachDatabase,
  ManualClock,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { joinCounterParts } from '../../db/counter-parts.ts';
import { backfill } from '../../db/migrations/0034-report-counters.ts';
import type { DB } from '../../db/tables.ts';

const clock = new ManualClock();

type Figures = Map<string, bigint>;

/** The per-day report counters of a program, slots summed, zeros left out: `kind|owner|metric|day|currency`. */
async function counted(db: Kysely<DB>, programId: number): Promise<Figures> {
  const rows = await db
    .selectFrom('report_counters')
    .selectAll()
    .where('program_id', '=', programId)
    .execute();
  const figures: Figures = new Map();
  for (const row of rows) {
    const key = `${row.owner_kind}|${Number(row.owner_id)}|${row.metric}|${row.day}|${row.currency}`;
    figures.set(key, (figures.get(key) ?? 0n) + joinCounterParts(row.value, row.value_hi));
  }
  return new Map([...figures].filter(([, value]) => value !== 0n).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The same figures recounted from the rows, as ADR 0123 defines them. */
async function recounted(db: Kysely<DB>, programId: number): Promise<Figures> {
  const customers = await db
    .selectFrom('customers')
    .selectAll()
    .where('program_id', '=', programId)
    .execute();
  const sales = await db.selectFrom('transactions').selectAll().where('program_id', '=', programId).execute();
  const rewards = await db.selectFrom('rewards').selectAll().where('program_id', '=', programId).execute();
  const linkOfBuyer = new Map(customers.map((c) => [Number(c.id), c.referral_link_id]));
  const buyerOfSale = new Map(sales.map((t) => [Number(t.id), Number(t.customer_id)]));
  const figures: Figures = new Map();
  const add = (
    owners: [string, number | null | undefined][],
    metric: string,
    at: string,
    currency: string,
    by: bigint,
  ) => {
    for (const [kind, owner] of owners) {
      if (owner === null || owner === undefined) continue;
      const key = `${kind}|${Number(owner)}|${metric}|${at.slice(0, 10)}|${currency}`;
      figures.set(key, (figures.get(key) ?? 0n) + by);
    }
  };
  for (const c of customers.filter((c) => c.deleted_at === null)) {
    const owners: [string, number | null][] = [
      ['program', programId],
      ['partner', c.partner_id],
      ['customer', c.referring_customer_id],
      ['link', c.referral_link_id],
    ];
    add(owners, 'customers', c.created_at, '', 1n);
    if (c.partner_id !== null || c.referring_customer_id !== null)
      add(owners, 'signups', c.created_at, '', 1n);
  }
  for (const t of sales.filter((t) => t.deleted_at === null && t.archived_at === null)) {
    const owners: [string, number | null | undefined][] = [
      ['program', programId],
      ['partner', t.partner_id],
      ['customer', t.referring_customer_id],
      ['link', linkOfBuyer.get(Number(t.customer_id))],
    ];
    add(owners, 'sales', t.created_at, '', 1n);
    if (t.is_currency)
      add(
        owners,
        'revenue',
        t.created_at,
        t.amount_units ?? '',
        BigInt(t.amount) - BigInt(t.refunded_amount ?? 0),
      );
  }
  for (const r of rewards.filter(
    (r) => r.deleted_at === null && !['denied', 'voided', 'rejected'].includes(r.status),
  )) {
    const buyer = r.transaction_id === null ? undefined : buyerOfSale.get(Number(r.transaction_id));
    const owners: [string, number | null | undefined][] = [
      ['program', programId],
      ['partner', r.partner_id],
      ['customer', r.customer_id],
      ['link', buyer === undefined ? undefined : linkOfBuyer.get(buyer)],
    ];
    add(owners, 'rewards', r.created_at, '', 1n);
    if (r.partner_id !== null && r.is_currency)
      add(owners, 'commissions', r.created_at, r.amount_units, BigInt(r.amount));
  }
  return new Map([...figures].filter(([, value]) => value !== 0n).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The all-time totals (SQLite, ADR 0124): `kind|owner|metric|currency`, zeros left out. */
async function totalled(db: Kysely<DB>, programId: number): Promise<Figures> {
  const rows = await db.selectFrom('report_totals').selectAll().where('program_id', '=', programId).execute();
  const figures: Figures = new Map();
  for (const row of rows) {
    const value = joinCounterParts(row.value, row.value_hi);
    if (value !== 0n)
      figures.set(`${row.owner_kind}|${Number(row.owner_id)}|${row.metric}|${row.currency}`, value);
  }
  return new Map([...figures].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** What the totals should be: the ranked owners' signups, sales and revenue of every day summed. */
function totalsOf(days: Figures): Figures {
  const figures: Figures = new Map();
  for (const [key, value] of days) {
    const [kind, owner, metric, , currency] = key.split('|');
    if (kind === 'program' || !['customers', 'sales', 'revenue'].includes(metric ?? '')) continue;
    const total = `${kind}|${owner}|${metric}|${currency}`;
    figures.set(total, (figures.get(total) ?? 0n) + value);
  }
  return new Map([...figures].filter(([, value]) => value !== 0n).sort(([a], [b]) => (a < b ? -1 : 1)));
}

describeEachDatabase(
  'report counters',
  (server) => {
    const db = () => server().deps.database.db as Kysely<DB>;
    const call = async (p: TestProgram, method: string, path: string, body?: unknown) => {
      const res = await server().request(method, path, { token: p.token, body });
      assert.ok(res.status < 300, `${method} ${path}: ${res.text}`);
      return res.body;
    };
    const same = async (p: TestProgram, step: string) => {
      const figures = await counted(db(), p.id);
      assert.deepEqual(figures, await recounted(db(), p.id), step);
      if (server().deps.database.dialect === 'sqlite')
        assert.deepEqual(await totalled(db(), p.id), totalsOf(figures), `${step}: the all-time totals`);
      return figures;
    };

    test('equal a recount after sales, refunds, clawbacks, denials, archives and deletes; the backfill counts the same', async () => {
      clock.set('2026-03-30T22:00:00.000Z');
      const { p } = await commissionProgram(server() as TestServer);
      await call(p, 'POST', '/v1/customers', { key: 'c-pa2', partner: { key: 'pa' } });
      for (let day = 0; day < 6; day++) {
        clock.set(
          `2026-0${day < 2 ? 3 : 4}-${String(day < 2 ? 30 + day : day - 1).padStart(2, '0')}T1${day}:00:00.000Z`,
        );
        await sell(
          server(),
          p,
          day % 2 ? 'c-pb' : 'c-pa',
          `s${day}`,
          `${20 + day}.5`,
          day % 3 === 2 ? 'EUR' : 'USD',
        );
        await sell(server(), p, 'c-pa2', `t${day}`, 7);
      }
      await call(p, 'POST', '/v1/transactions', {
        key: 'paid',
        amount: 200,
        action: 'sale',
        rewarded: true,
        customer: { key: 'c-pa' },
      });
      const first = await same(p, 'after sales');
      assert.ok(
        [...first.keys()].some((key) => key.startsWith('link|')),
        'sales counted per link',
      );

      clock.set('2026-04-09T09:00:00.000Z');
      await call(p, 'POST', '/v1/transactions/s1/refund', { amount: 3 });
      await call(p, 'POST', '/v1/transactions/s2/refund', {});
      await call(p, 'POST', '/v1/transactions/paid/refund', { amount: 50 });
      assert.ok(
        (await commissionsOf(server(), p)).some((c) => c.kind === 'clawback'),
        'a clawback line was made',
      );
      await same(p, 'after refunds and a clawback');

      const open = (await commissionsOf(server(), p)).find((c) => c.kind === 'sale' && c.status !== 'paid');
      assert.ok(open, 'an unpaid commission to deny');
      await call(p, 'POST', '/v1/commissions/deny', { ids: [open.id], reason: 'Test' });
      await call(p, 'POST', '/v1/transactions/s3/archive');
      await call(p, 'POST', '/v1/transactions/t4/archive');
      await call(p, 'POST', '/v1/transactions/t4/revoke-archive');
      await call(p, 'DELETE', '/v1/transactions/s4');
      await same(p, 'after a denial, archives and a delete');

      await call(p, 'DELETE', '/v1/customers/c-pa2');
      await db().deleteFrom('transactions').where('program_id', '=', p.id).where('key', '=', 's5').execute();
      await db().deleteFrom('customers').where('program_id', '=', p.id).where('key', '=', 'c-pb').execute();
      const last = await same(p, 'after customers and a sale removed');

      await db().deleteFrom('report_counters').execute();
      await backfill(db() as Kysely<unknown>, server().deps.database.dialect);
      assert.deepEqual(await counted(db(), p.id), last, 'the backfill counts what the writes counted');
      await same(p, 'after the backfill');
    });

    test('count a refer-a-friend program per referrer, and go with a removed program', async () => {
      clock.set('2026-05-02T12:00:00.000Z');
      const p = await server().newProgram('referral');
      const reward = {
        type: 'fixed',
        is_currency: true,
        amount_units: 'USD',
        trigger: 'every_purchase',
        limit: null,
      };
      await call(p, 'PUT', '/v1/program', {
        program_settings: {
          referrer_reward: { ...reward, value: 5 },
          referred_reward: { ...reward, value: 2 },
        },
      });
      await call(p, 'POST', '/v1/customers', { id: 'ref', key: 'ref-key', email: 'ref@example.com' });
      for (const i of [1, 2, 3]) {
        await call(p, 'POST', '/v1/customers', {
          id: `b${i}`,
          email: `b${i}@example.com`,
          referring_customer: { id: 'ref' },
        });
        await call(p, 'POST', '/v1/transactions', {
          key: `r${i}`,
          amount: 10 * i,
          action: 'sale',
          customer: { id: `b${i}` },
        });
      }
      const figures = await same(p, 'after referred sales');
      assert.ok([...figures.keys()].some((key) => key.startsWith('customer|') && key.includes('|rewards|')));
      await call(p, 'DELETE', '/v1/transactions/r2');
      await call(p, 'DELETE', '/v1/customers/b3');
      await same(p, 'after deletes');
      await db().deleteFrom('programs').where('id', '=', p.id).execute();
      assert.equal((await counted(db(), p.id)).size, 0, 'nothing left of a removed program');
      if (server().deps.database.dialect === 'sqlite')
        assert.equal(
          (await db().selectFrom('report_totals').select('owner_id').where('program_id', '=', p.id).execute())
            .length,
          0,
          'no totals left of a removed program',
        );
    });
  },
  { clock },
);
