import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase, startServer, testDialects } from '../../test/harness.ts';
import { translateDriverError, uniqueViolationColumn } from './errors.ts';

describeEachDatabase('driver errors', (server) => {
  const row = (publicId: string) => ({
    public_id: publicId,
    name: 'n',
    type: 'affiliate' as const,
    website: null,
    settings: '{}',
    portal_settings: '{}',
    created_at: '2026-01-01T00:00:00.000000Z',
    updated_at: '2026-01-01T00:00:00.000000Z',
  });

  test('a unique violation names its columns on either database', async () => {
    const db = server().deps.database.db;
    await db.insertInto('programs').values(row('dup-public-id')).execute();
    const error = await db
      .insertInto('programs')
      .values(row('dup-public-id'))
      .execute()
      .catch((e: unknown) => e);
    assert.deepEqual(translateDriverError(error), { kind: 'unique', columns: ['public_id'] });
    assert.equal(uniqueViolationColumn(error), 'public_id');
  });

  test('a foreign key violation is recognised on either database', async () => {
    const error = await server()
      .deps.database.db.insertInto('api_keys')
      .values({
        public_id: 'orphan-key-01',
        program_id: 987654,
        name: 'x',
        scope: 'full',
        secret_digest: 'x',
        created_at: '2026-01-01T00:00:00.000000Z',
      })
      .execute()
      .catch((e: unknown) => e);
    assert.deepEqual(translateDriverError(error), { kind: 'foreign_key' });
    assert.equal(uniqueViolationColumn(error), undefined);
  });
});

for (const dialect of testDialects()) {
  test(`the app refuses to boot when a route declares no policy [${dialect}]`, async () => {
    await assert.rejects(
      startServer({
        dialect,
        routes: (app) => {
          app.get('/v1/undeclared', async () => ({}));
        },
      }),
      /declares no `config.auth`/,
    );
    await assert.rejects(
      startServer({
        dialect,
        routes: (app) => {
          app.get(
            '/v1/no-types',
            { config: { auth: 'apiKey' }, schema: { operationId: 'x', summary: 'x' } },
            async () => ({}),
          );
        },
      }),
      /declares no `config.programTypes`/,
    );
  });
}
