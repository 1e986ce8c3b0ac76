import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commissionProgram } from '../../../test/commission-factories.ts';
import { describeEachDatabase } from '../../../test/harness.ts';
import { firstItems } from '../../../test/items.ts';

// Deep pages (from 1,000 rows in) may start from a row a recent page found (db/page-starts.ts):
// every page must still be exactly the rows an offset from the start gives, in any order of
// requests, for any page size, with filters.
describeEachDatabase('commission list: deep pages', (server) => {
  test('deep pages walked, repeated and jumped to are the rows at their offsets', async () => {
    const { p } = await commissionProgram(server());
    const { db } = server().deps.database;
    const partners = await db
      .selectFrom('partners')
      .select('id')
      .where('program_id', '=', p.id)
      .orderBy('id')
      .execute();
    const [pa, pb] = firstItems(
      partners.map((partner) => Number(partner.id)),
      2,
    );
    // 1,400 commissions, three to a timestamp (order falls back on the id), 1,200 of them pa's.
    const rows = Array.from({ length: 1400 }, (_, i) => {
      const at = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 1000).toISOString().replace('Z', '000Z');
      return {
        program_id: p.id,
        transaction_id: null,
        partner_id: i % 7 === 0 ? pb : pa,
        customer_id: null,
        role: 'manual',
        status: 'ok',
        amount: 1_000_000 + i,
        amount_units: 'USD',
        is_currency: true,
        credit: false,
        commission_type: 'fixed',
        commission_value: '1',
        product_id: null,
        product_type: null,
        available_at: null,
        created_at: at,
        deleted_at: null,
        approved_at: at,
        description: `bulk ${i}`,
        updated_at: at,
      };
    });
    for (let i = 0; i < rows.length; i += 200)
      await db
        .insertInto('rewards')
        .values(rows.slice(i, i + 200))
        .execute();
    const inOrder = async (sort: 'asc' | 'desc', partnerId?: number) => {
      let query = db.selectFrom('rewards').select('id').where('program_id', '=', p.id);
      if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
      return (await query.orderBy('created_at', sort).orderBy('id', sort).execute()).map((r) => Number(r.id));
    };
    const desc = await inOrder('desc');
    const asc = await inOrder('asc');
    const ofPa = await inOrder('desc', pa);
    const page = async (query: string) => {
      const res = await server().request('GET', `/v1/commissions?${query}`, { token: p.token });
      assert.equal(res.status, 200, res.text);
      return res.body as { data: { id: number }[]; links: { next: string | null } };
    };
    const check = async (query: string, expected: number[], offset: number, limit: number) => {
      const body = await page(query);
      assert.deepEqual(
        body.data.map((c) => c.id),
        expected.slice(offset, offset + limit),
        query,
      );
      assert.equal(body.links.next !== null, expected.length > offset + limit, `${query}: next`);
    };
    // Jumped to with nothing remembered: counted from the start.
    await check('limit=20&page=60', desc, 1180, 20);
    // Walked in order: each page after 1,000 rows starts where the previous one ended.
    for (let n = 1; n <= 6; n++) await check(`limit=250&page=${n}`, desc, (n - 1) * 250, 250);
    // Repeated, and at other page sizes near a remembered start (before and after it).
    await check('limit=250&page=5', desc, 1000, 250);
    await check('limit=15&page=70', desc, 1035, 15);
    await check('limit=15&page=70', desc, 1035, 15);
    await check('limit=15&page=71', desc, 1050, 15);
    await check('limit=10&page=101', desc, 1000, 10);
    await check('limit=100&page=14', desc, 1300, 100);
    // Near a start remembered before, and the other order (a list of its own).
    await check('limit=50&page=27', desc, 1300, 50);
    for (const n of [10, 11, 12, 14, 11])
      await check(`limit=100&page=${n}&sort=asc`, asc, (n - 1) * 100, 100);
    // A filter is a list of its own: its offsets count its own rows.
    for (const n of [10, 11, 12, 11]) await check(`limit=100&page=${n}&partner=pa`, ofPa, (n - 1) * 100, 100);
    await check('limit=100&page=12', desc, 1100, 100);
  });
});
