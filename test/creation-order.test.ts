import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, type Page, type Reply, type TestProgram, type TestServer } from './harness.ts';
import { itemAt } from './items.ts';

// Contract §4.19: lists sorted by creation agree with the `created_at` they show, also for records
// created at the same time on several connections (PostgreSQL commits them in any order).

const CONCURRENCY = 8;

/** Runs `create(i)` for i < count, `CONCURRENCY` at a time; each must answer `status`. */
async function createConcurrently(
  count: number,
  status: number,
  create: (i: number) => Promise<{ status: number; text: string }>,
) {
  for (let start = 0; start < count; start += CONCURRENCY) {
    const round = Array.from({ length: Math.min(CONCURRENCY, count - start) }, (_, j) => create(start + j));
    for (const reply of await Promise.all(round)) assert.equal(reply.status, status, reply.text);
  }
}

interface Entry {
  id: string;
  created_at: string;
}

/** Every entry of a list, page after page through `links.next`. */
async function listAll<const P extends string>(
  server: TestServer,
  program: TestProgram,
  path: P,
  sort: 'asc' | 'desc',
) {
  const entries: Entry[] = [];
  let next: string | null = `${path}?sort=${sort}&limit=100`;
  while (next) {
    const page: Reply<Page<Entry>> = await server.request<Page<Entry>>('GET', next.replace(server.url, ''), {
      token: program.token,
    });
    assert.equal(page.status, 200, page.text);
    entries.push(...page.body.data);
    next = page.body.links.next;
  }
  return entries;
}

/** Both orders list every record once, each adjacent pair in `created_at` order. */
async function assertCreationOrder<const P extends string>(
  server: TestServer,
  program: TestProgram,
  path: P,
  count: number,
) {
  const desc = await listAll(server, program, path, 'desc');
  const asc = await listAll(server, program, path, 'asc');
  assert.equal(new Set(desc.map((e) => e.id)).size, count);
  const misordered = (entries: Entry[], before: (a: string, b: string) => boolean) =>
    entries.slice(1).filter((entry, i) => !before(itemAt(entries, i).created_at, entry.created_at)).length;
  assert.equal(
    misordered(desc, (a, b) => a >= b),
    0,
    `pairs out of order with sort=desc in ${path}`,
  );
  assert.equal(
    misordered(asc, (a, b) => a <= b),
    0,
    `pairs out of order with sort=asc in ${path}`,
  );
  // Ties on created_at are broken by id in the same direction, so one order is the other reversed.
  assert.deepEqual(
    asc.map((e) => e.id),
    desc.map((e) => e.id).reverse(),
  );
}

describeEachDatabase('creation order', (server) => {
  test('partners created 8 at a time are listed in created_at order, both ways', async () => {
    const program = await server().newProgram('affiliate');
    const count = 208;
    await createConcurrently(count, 201, (i) =>
      server().request('POST', '/v1/partners', {
        token: program.token,
        body: { email: `partner${i}@example.com`, name: `Partner ${i}` },
      }),
    );
    await assertCreationOrder(server(), program, '/v1/partners', count);
  });

  test('refer-a-friend customers created 8 at a time are listed in created_at order, both ways', async () => {
    const program = await server().newProgram('referral');
    const count = 96;
    await createConcurrently(count, 201, (i) =>
      server().request('POST', '/v1/customers', {
        token: program.token,
        body: { email: `friend${i}@example.com`, name: `Friend ${i}` },
      }),
    );
    await assertCreationOrder(server(), program, '/v1/customers', count);
  });
});
