import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import {
  describeEachDatabase,
  type Page,
  type Schema,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { inParallel } from '../../../test/in-parallel.ts';
import { itemAt } from '../../../test/items.ts';
import { present } from '../../core/present.ts';

/**
 * RFC 4180 records back into rows of fields, read by an independent parser (csv-parse), strictly:
 * every record the header's length, quotes balanced, and the file ending with a line break.
 */
function parseCsv(text: string): string[][] {
  assert.ok(text.endsWith('\n'), 'the file ends with a line break');
  return parse(text, { relax_quotes: false, relax_column_count: false });
}

/** The file as objects keyed by its header row. */
async function exported<const P extends string>(server: TestServer, p: TestProgram, path: P) {
  const res = await server.request('GET', path, { token: p.token });
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
  assert.match(
    res.headers.get('content-disposition') ?? '',
    /^attachment; filename="[a-z]+-[A-Za-z0-9]+-\d{4}-\d{2}-\d{2}\.csv"$/,
  );
  const [header, ...rows] = parseCsv(res.text);
  assert.ok(header, 'the file has a header row');
  return rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]])));
}

/** Every item of a list the document types as pages of `Item`. */
async function listAll<Item>(server: TestServer, p: TestProgram, path: string): Promise<Item[]> {
  const items: Item[] = [];
  for (let page = 1; ; page++) {
    const res = await server.request<Page<Item>>(
      'GET',
      `${path}${path.includes('?') ? '&' : '?'}limit=250&page=${page}&sort=asc`,
      { token: p.token },
    );
    assert.equal(res.status, 200, res.text);
    items.push(...res.body.data);
    if (res.body.data.length < 250) return items;
  }
}

describeEachDatabase('exports', (server) => {
  let p: TestProgram;
  const call = async <const M extends string, const P extends string>(method: M, path: P, body?: unknown) => {
    const res = await server().request(method, path, { token: p.token, body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.text}`);
    return res.body;
  };

  before(async () => {
    p = await server().newProgram('affiliate');
    await call('PUT', '/v1/program', { program_settings: { commission: { type: 'percent', value: 10 } } });
    // Text a spreadsheet would read as a formula, and fields that need quotes.
    await call('POST', '/v1/partners', {
      email: 'pa@example.com',
      key: 'pa',
      name: '=SUM(A1)',
      surname: 'Doe, "Jr"',
    });
    await call('POST', '/v1/partners', { email: 'pb@example.com', key: 'pb', name: 'Line\nbreak' });
    // Enough customers for several keyset pages, created eight at a time.
    await inParallel(2100 + 7, 8, (i) =>
      call('POST', '/v1/customers', { key: `c${i}`, partner: { key: i % 3 === 0 ? 'pb' : 'pa' } }),
    );
    for (let i = 0; i < 30; i++)
      await call('POST', '/v1/transactions', {
        key: `s${i}`,
        amount: `${i + 1}.123456`,
        amount_units: i % 4 === 0 ? 'EUR' : 'USD',
        action: 'sale',
        customer: { key: `c${i}` },
      });
    await call('POST', '/v1/transactions/s3/refund', { amount: 1 });
    await call('DELETE', '/v1/transactions/s4');
    await call('DELETE', '/v1/customers/c5');
  });

  test('partners: one header row, formula-looking text guarded, quotes and line breaks round trip', async () => {
    const rows = await exported(server(), p, '/v1/exports/partners.csv');
    const listed = await listAll<Schema<'PartnerEntry'>>(server(), p, '/v1/partners');
    assert.deepEqual(
      rows.map((row) => row.id),
      listed.map((partner) => partner.id),
    );
    assert.equal(itemAt(rows).name, "'=SUM(A1)");
    assert.equal(itemAt(rows).surname, 'Doe, "Jr"');
    assert.equal(itemAt(rows).key, 'pa');
    assert.equal(itemAt(rows, 1).name, 'Line\nbreak');
    assert.equal(itemAt(rows).created_at, listed[0]?.created_at);
    const file = await server().request('GET', '/v1/exports/transactions.csv', { token: p.token });
    assert.match(file.headers.get('content-disposition') ?? '', /^attachment; filename="transactions-/);
    assert.ok(file.headers.get('x-request-id'), 'the headers set before the file carry over');
  });

  test('customers over several keyset pages match the list, per partner too', async () => {
    const rows = await exported(server(), p, '/v1/exports/customers.csv');
    const listed = await listAll<Schema<'AffiliateCustomerEntry'>>(server(), p, '/v1/customers');
    assert.equal(rows.length, 2106);
    assert.deepEqual(
      rows.map((row) => [row.key, row.partner, row.created_at]),
      listed.map((customer) => [customer.key, customer.partner, customer.created_at]),
    );
    const ofPb = await exported(server(), p, '/v1/exports/customers.csv?partner=pb');
    assert.equal(ofPb.length, 703);
    const c0 = rows.find((r) => r.key === 'c0');
    assert.ok(c0, 'customer c0 is exported');
    assert.ok(ofPb.every((row) => row.partner === c0.partner));
  });

  test('transactions and commissions match their lists, amounts exact', async () => {
    const rows = await exported(server(), p, '/v1/exports/transactions.csv');
    const listed = await listAll<Schema<'AffiliateTransaction'>>(server(), p, '/v1/transactions');
    assert.deepEqual(
      rows.map((row) => [row.key, row.customer, Number(row.amount), row.currency]),
      listed.map((sale) => [sale.key, sale.customer, sale.amount, sale.amount_units]),
    );
    assert.equal(
      present(
        rows.find((row) => row.key === 's3'),
        'sale s3',
      ).refunded_amount,
      '1',
    );
    assert.equal(
      present(
        rows.find((row) => row.key === 's0'),
        'sale s0',
      ).amount,
      '1.123456',
    );
    const commissions = await exported(server(), p, '/v1/exports/commissions.csv');
    const listedCommissions = await listAll<Schema<'Commission'>>(server(), p, '/v1/commissions');
    assert.deepEqual(
      commissions.map((row) => [Number(row.id), row.status, Number(row.amount), row.currency]),
      listedCommissions.map((c) => [Number(c.id), c.status, c.amount, c.currency]),
    );
    const usd = await exported(server(), p, '/v1/exports/commissions.csv?currency=usd&status=approved');
    assert.ok(usd.length > 0 && usd.every((row) => row.currency === 'USD' && row.status === 'approved'));
  });

  test('start and end keep the rows of those days; bad filters are a 422 naming the field', async () => {
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(
      (await exported(server(), p, `/v1/exports/partners.csv?start=${today}&end=${today}`)).length,
      2,
    );
    assert.equal((await exported(server(), p, '/v1/exports/partners.csv?end=2020-01-01')).length, 0);
    // The sales export binds its range per export: each range keeps its own rows.
    const sales = (await exported(server(), p, '/v1/exports/transactions.csv')).length;
    assert.ok(sales > 0);
    const salesIn = async (query: string) =>
      (await exported(server(), p, `/v1/exports/transactions.csv?${query}`)).length;
    assert.equal(await salesIn(`start=${today}&end=${today}`), sales);
    assert.equal(await salesIn('end=2020-01-01'), 0);
    assert.equal(await salesIn(`start=${today}`), sales);
    const cases: [string, string][] = [
      ['/v1/exports/partners.csv?start=2026-13-01', 'start'],
      ['/v1/exports/partners.csv?start=2026-02-02&end=2026-02-01', 'end'],
      ['/v1/exports/partners.csv?status=gone', 'status'],
      ['/v1/exports/customers.csv?partner=nobody', 'partner'],
      ['/v1/exports/transactions.csv?customer=nobody', 'customer'],
      ['/v1/exports/commissions.csv?currency=dollars', 'currency'],
    ];
    for (const [path, field] of cases) {
      const res = await server().request('GET', path, { token: p.token });
      assert.equal(res.status, 422, `${path}: ${res.text}`);
      assert.ok(field in res.error.errors, `${path}: ${res.text}`);
    }
    const newsletter = await server().request('GET', '/v1/exports/partners.csv', {
      token: (await server().newProgram('newsletter')).token,
    });
    assert.equal(newsletter.status, 403);
  });

  test("a customer's new key shows in the transactions export, however it is changed", async () => {
    const as = async <const M extends string, const P extends string>(
      q: TestProgram,
      method: M,
      path: P,
      body?: unknown,
    ) => {
      const res = await server().request(method, path, { token: q.token, body });
      assert.ok(res.status < 300, `${method} ${path}: ${res.text}`);
      return res;
    };
    const sale = (key: string, customer: object) => ({ key, amount: 10, action: 'sale', customer });
    const buyers = async (q: TestProgram) =>
      Object.fromEntries(
        (await exported(server(), q, '/v1/exports/transactions.csv')).map((row) => [row.key, row.customer]),
      );

    // Affiliate: by path and by body (`update.key`); a customer's every sale follows.
    const a = await server().newProgram('affiliate');
    await as(a, 'POST', '/v1/partners', { email: 'pa@example.com', key: 'pa' });
    await as(a, 'POST', '/v1/customers', { key: 'k1', partner: { key: 'pa' } });
    await as(a, 'POST', '/v1/customers', { key: 'k2', partner: { key: 'pa' } });
    for (const [key, customer] of [
      ['a1', 'k1'],
      ['a2', 'k1'],
      ['a3', 'k2'],
    ] as const)
      await as(a, 'POST', '/v1/transactions', sale(key, { key: customer }));
    await as(a, 'PUT', '/v1/customers/k1', { key: 'k1-new' });
    await as(a, 'PUT', '/v1/customers', { key: 'k2', update: { key: 'k2-new' } });
    assert.deepEqual(await buyers(a), { a1: 'k1-new', a2: 'k1-new', a3: 'k2-new' });
    const listed = await listAll<Schema<'AffiliateTransaction'>>(server(), a, '/v1/transactions');
    assert.deepEqual(listed.map((row) => row.customer).sort(), ['k1-new', 'k1-new', 'k2-new']);

    // Refer-a-friend: a customer update, and a rename of its default link (its key).
    const r = await server().newProgram('referral');
    await as(r, 'POST', '/v1/customers', { id: 'ref', key: 'ref-key', email: 'ref@example.com' });
    await as(r, 'POST', '/v1/customers', {
      id: 'buyer',
      key: 'buyer-key',
      email: 'buyer@example.com',
      referring_customer: { id: 'ref' },
    });
    await as(r, 'POST', '/v1/transactions', { ...sale('r1', { id: 'buyer' }), amount_units: 'usd' });
    await as(r, 'PUT', '/v1/customers/buyer', { key: 'buyer-renamed' });
    assert.deepEqual(await buyers(r), { r1: 'buyer-renamed' });
    await as(r, 'PUT', '/v1/customer_referral_links/buyer-renamed', { key: 'buyer-link' });
    assert.deepEqual(await buyers(r), { r1: 'buyer-link' });
  });

  test('subscribers of a newsletter program', async () => {
    const n = await server().newProgram('newsletter');
    for (const email of ['a@example.com', 'b@example.com']) {
      const res = await server().request('POST', '/v1/subscribers', { token: n.token, body: { email } });
      assert.ok(res.status < 300, res.text);
    }
    const rows = await exported(server(), n, '/v1/exports/subscribers.csv');
    const listed = await listAll<Schema<'Subscriber'>>(server(), n, '/v1/subscribers');
    assert.deepEqual(rows.map((row) => row.email).sort(), listed.map((s) => s.email).sort());
  });
});
