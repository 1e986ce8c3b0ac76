import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { findCustomerRecordByPath } from './customers.referral.repository.ts';

/**
 * Customer reads arriving together (on PostgreSQL one statement for a program's reads of one turn,
 * customers.referral.repository.ts): each answers what it answers alone, by public id or key, a
 * customer without a referrer and one with, and 404 for a segment no customer of the program has,
 * even when another program's customer has it.
 */

describeEachDatabase('refer-a-friend customer reads at once', (server, dialect) => {
  test('48 reads at once answer what each answers alone', async () => {
    const p = await server().newProgram('referral');
    const other = await server().newProgram('referral');
    const created = await server().request('POST', '/v1/customers', {
      token: other.token,
      body: { id: 'elsewhere', email: 'elsewhere@example.com' },
    });
    assert.equal(created.status, 201, created.text);
    for (let i = 0; i < 6; i++) {
      const referrer = await server().request('POST', '/v1/customers', {
        token: p.token,
        body: { id: `ref-${i}`, key: `ref-key-${i}`, email: `ref-${i}@example.com` },
      });
      assert.equal(referrer.status, 201, referrer.text);
      const referred = await server().request('POST', '/v1/customers', {
        token: p.token,
        body: { id: `new-${i}`, email: `new-${i}@example.com`, referring_customer: { id: `ref-${i}` } },
      });
      assert.equal(referred.status, 201, referred.text);
    }
    const segments = Array.from({ length: 48 }, (_, i) =>
      itemAt([`ref-${i % 6}`, `ref-key-${i % 6}`, `new-${i % 6}`, 'elsewhere', `missing-${i}`], i % 5),
    );
    const read = (segment: string) =>
      server().request('GET', `/v1/customers/${encodeURIComponent(segment)}`, { token: p.token });
    const alone: Awaited<ReturnType<typeof read>>[] = [];
    for (const segment of segments) alone.push(await read(segment));
    const together = await Promise.all(segments.map(read));
    for (const [i, segment] of segments.entries()) {
      const mixed = itemAt(together, i);
      const single = itemAt(alone, i);
      assert.equal(mixed.status, single.status, segment);
      assert.deepEqual(mixed.body, single.body, segment);
      const expected = segment.startsWith('missing') || segment === 'elsewhere' ? 404 : 200;
      assert.equal(mixed.status, expected, `${segment}: ${mixed.text}`);
    }
    const referred = itemAt(together, segments.indexOf('new-2')).body.data;
    assert.equal(referred.id, 'new-2');
    assert.equal(referred.referring_customer?.id, 'ref-2');
    assert.equal(itemAt(together, segments.indexOf('ref-key-1')).body.data.id, 'ref-1');

    if (dialect === 'postgres') {
      // Called in one turn, the reads certainly share a statement: each still gets its own record.
      const db = server().deps.database.db;
      const records = await Promise.all(
        segments.map((segment) => findCustomerRecordByPath(db, p.id, segment)),
      );
      for (const [i, segment] of segments.entries()) {
        const single = await findCustomerRecordByPath(db, p.id, segment);
        assert.deepEqual(records[i], single, segment);
        assert.equal(records[i] === undefined, itemAt(together, i).status === 404, segment);
      }
    }
  });
});
