import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from 'kysely';
import { describeEachDatabase } from '../../test/harness.ts';
import { compileNamed, definePreparedArrayQuery, definePreparedQuery, type ParamOf } from './prepared.ts';
import type { DB } from './tables.ts';

// Kysely instances that only compile: the mapping is checked on both dialects' placeholders.
const compilers = {
  sqlite: new Kysely<DB>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  }),
  postgres: new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  }),
};

type EventParams = { programId: number; event: string; max: number };

/** A query that uses `programId` twice, between literal values that are not parameters. */
const eventsQuery = (db: Kysely<DB>, param: ParamOf<EventParams>) =>
  db
    .selectFrom('events')
    .select(['id', 'event'])
    .where('program_id', '=', param('programId'))
    .where('payload', '<>', 'literal')
    .where('event', '=', param('event'))
    .where('id', 'not in', (sub) =>
      sub.selectFrom('events').select('id').where('program_id', '=', param('programId')).where('id', '<', 0),
    )
    .orderBy('id')
    .limit(param('max'));

test('named parameters fill the positional placeholders in compiled order [postgres]', () => {
  const { query, bind } = compileNamed(compilers.postgres, eventsQuery);
  assert.equal(query.parameters.length, 6);
  assert.equal(query.sql.match(/\$\d/g)?.length, 6, query.sql);
  assert.deepEqual(bind({ programId: 7, event: 'partner.created', max: 50 }), [
    7,
    'literal',
    'partner.created',
    7,
    0,
    50,
  ]);
  // Each call binds its own values; the values the builder wrote never change.
  assert.deepEqual(bind({ programId: 8, event: 'x', max: 1 }), [8, 'literal', 'x', 8, 0, 1]);
});

test('on SQLite the texts the builder wrote are literals of the statement, the rest stays bound', () => {
  const { query, bind } = compileNamed(compilers.sqlite, eventsQuery);
  assert.equal(query.parameters.length, 5);
  assert.equal(query.sql.match(/\?/g)?.length, 5, query.sql);
  assert.match(query.sql, /"payload" <> 'literal'/);
  assert.deepEqual(bind({ programId: 7, event: 'partner.created', max: 50 }), [
    7,
    'partner.created',
    7,
    0,
    50,
  ]);
  assert.deepEqual(bind({ programId: 8, event: 'x', max: 1 }), [8, 'x', 8, 0, 1]);
  // A quote in a constant is written as SQL escapes it; a text given per call is never inlined.
  const quoted = compileNamed(compilers.sqlite, (db, param: ParamOf<{ event: string }>) =>
    db.selectFrom('events').select('id').where('payload', '=', "it's").where('event', '=', param('event')),
  );
  assert.match(quoted.query.sql, /"payload" = 'it''s'/);
  assert.deepEqual(quoted.bind({ event: "o'clock" }), ["o'clock"]);
});

describeEachDatabase('prepared queries with named parameters', (server) => {
  const insertEvent = definePreparedQuery<never, { programId: number; event: string; at: string }>(
    (db, param) =>
      db.insertInto('events').values({
        program_id: param('programId'),
        event: param('event'),
        payload: '{}',
        created_at: param('at'),
      }),
  );
  const selectEvents = definePreparedQuery<{ event: string; created_at: string }, EventParams>((db, param) =>
    db
      .selectFrom('events')
      .select(['event', 'created_at'])
      .where('program_id', '=', param('programId'))
      .where('payload', '=', '{}')
      .where('event', '=', param('event'))
      .where('id', 'in', (sub) =>
        sub.selectFrom('events').select('id').where('program_id', '=', param('programId')),
      )
      .orderBy('id')
      .limit(param('max')),
  );

  test('run alone and inside a transaction, with the names bound to their places', async () => {
    const { db } = server().deps.database;
    const a = await server().newProgram('affiliate');
    const b = await server().newProgram('affiliate');
    const at = '2026-01-15T12:00:00.000000Z';
    await insertEvent(db, { programId: a.id, event: 'partner.created', at });
    await db.transaction().execute(async (trx) => {
      await insertEvent(trx, { at, event: 'partner.created', programId: a.id });
      await insertEvent(trx, { programId: b.id, event: 'partner.created', at });
      await insertEvent(trx, { programId: a.id, event: 'partner.updated', at });
      // Inside the transaction, the same compiled query sees the transaction's rows.
      const inside = await selectEvents(trx, { programId: a.id, event: 'partner.created', max: 10 });
      assert.equal(inside.length, 2);
    });
    const rows = await selectEvents(db, { programId: a.id, event: 'partner.created', max: 10 });
    assert.deepEqual(rows, [
      { event: 'partner.created', created_at: at },
      { event: 'partner.created', created_at: at },
    ]);
    assert.equal((await selectEvents(db, { programId: a.id, event: 'partner.created', max: 1 })).length, 1);
    assert.equal((await selectEvents(db, { programId: b.id, event: 'partner.created', max: 10 })).length, 1);
    assert.equal((await selectEvents(db, { programId: b.id, event: 'partner.updated', max: 10 })).length, 0);
  });

  const selectEventArrays = definePreparedArrayQuery<
    [event: string, big: number | bigint, small: number | bigint, id: number],
    { programId: number }
  >((db, param) =>
    db
      .selectFrom('events')
      .select([
        'event',
        // Computed integers: exact beyond 2^53 (a bigint), a number when a double holds them.
        sql<bigint>`${sql.lit(9007199254740993n)} + 0`.as('big'),
        sql<number>`${sql.lit(5)} + 0`.as('small'),
        'id',
      ])
      .where('program_id', '=', param('programId'))
      .orderBy('id'),
  );

  test('array rows: column values in select order, integers as exact as object rows', async () => {
    const { db } = server().deps.database;
    const program = await server().newProgram('affiliate');
    const at = '2026-01-15T12:00:00.000000Z';
    await insertEvent(db, { programId: program.id, event: 'partner.created', at });
    await insertEvent(db, { programId: program.id, event: 'partner.updated', at });
    const outside = await selectEventArrays(db, { programId: program.id });
    assert.deepEqual(
      outside.map(([event, big, small]) => [event, big, small]),
      [
        ['partner.created', 9007199254740993n, 5],
        ['partner.updated', 9007199254740993n, 5],
      ],
    );
    assert.ok(outside.every((row) => Array.isArray(row) && typeof row[3] === 'number'));
    // Inside a transaction (through Kysely's connection) the rows are arrays too.
    const inside = await db.transaction().execute((trx) => selectEventArrays(trx, { programId: program.id }));
    assert.deepEqual(inside, outside);
    // The same table read as objects is not affected by the array statement's mode.
    const objects = await selectEvents(db, { programId: program.id, event: 'partner.created', max: 10 });
    assert.deepEqual(objects, [{ event: 'partner.created', created_at: at }]);
  });
});
