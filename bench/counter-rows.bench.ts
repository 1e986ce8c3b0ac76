// How fast concurrent writers can add to one figure on PostgreSQL (issue 15), without HTTP: each
// of 8 connections runs transactions shaped like a sale's (four statements of other work, then
// the figure write, then commit) for BENCH_DURATION seconds, in three layouts of the figure:
//   one row     every writer updates the same row (a program's or partner's figure before 0018);
//   one row, first  the same, written before the other work (its lock then held for all of it);
//   8 slots     each connection adds to its own slot row (db/counter-slots.ts, what Vouch does);
//   deltas      each write appends a row, to be folded later (the alternative not taken).
// Prints transactions per second and p99 latency of each. PostgreSQL only.
// Run: `node --import tsx bench/counter-rows.bench.ts`.
import pg from 'pg';
import { present } from '../src/core/present.ts';
import { postgresDatabase } from './lib.ts';
import { recordFigure } from './results.ts';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const WRITERS = 8;

const database = await postgresDatabase();
if (!database) {
  console.log('PostgreSQL unreachable');
  process.exit(0);
}
const url = new URL(database.url);
const schema = present(url.searchParams.get('schema'), 'a schema in the database URL');
url.searchParams.delete('schema');
const connect = async () => {
  const client = new pg.Client({ connectionString: url.toString(), options: `-c search_path=${schema}` });
  await client.connect();
  return client;
};

const hot = `insert into figures (metric, slot, value) values ('sales', 0, 1)
     on conflict (metric, slot) do update set value = figures.value + excluded.value`;

const layouts: Record<string, (writer: number) => string> = {
  'one row, first': () => hot,
  'one row': (_writer: number) =>
    `insert into figures (metric, slot, value) values ('sales', 0, 1)
     on conflict (metric, slot) do update set value = figures.value + excluded.value`,
  '8 slots': (writer: number) =>
    `insert into figures (metric, slot, value) values ('sales', ${writer % 8}, 1)
     on conflict (metric, slot) do update set value = figures.value + excluded.value`,
  deltas: (_writer: number) => `insert into figure_deltas (metric, value) values ('sales', 1)`,
};

try {
  const setup = await connect();
  await setup.query(`create schema if not exists ${schema}`);
  await setup.query(
    `create table ${schema}.figures (metric text, slot smallint, value bigint, primary key (metric, slot))`,
  );
  await setup.query(
    `create table ${schema}.figure_deltas (id bigserial primary key, metric text, value bigint)`,
  );
  await setup.query(`create table ${schema}.work (id bigserial primary key, payload text)`);
  const clients = await Promise.all(Array.from({ length: WRITERS }, connect));
  console.log(
    `\n${WRITERS} writers, a sale-shaped transaction each (4 statements, the figure write, commit)`,
  );
  console.log(
    `${'layout'.padEnd(16)}${'tx/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}  exact`,
  );
  for (const [name, write] of Object.entries(layouts)) {
    await setup.query(`truncate ${schema}.figures, ${schema}.figure_deltas`);
    const latencies: number[] = [];
    const until = performance.now() + duration * 1000;
    await Promise.all(
      clients.map(async (client, writer) => {
        const figure = write(writer);
        while (performance.now() < until) {
          const started = performance.now();
          await client.query('begin');
          if (name === 'one row, first') await client.query(figure);
          await client.query('select 1');
          await client.query(`insert into work (payload) values ('sale')`);
          await client.query(`insert into work (payload) values ('reward')`);
          await client.query(`insert into work (payload) values ('event')`);
          if (name !== 'one row, first') await client.query(figure);
          await client.query('commit');
          latencies.push(performance.now() - started);
        }
      }),
    );
    const { rows } = await setup.query(
      `select (select coalesce(sum(value), 0) from ${schema}.figures) + (select coalesce(sum(value), 0) from ${schema}.figure_deltas) as total`,
    );
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      present(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))], 'a latency');
    console.log(
      `${name.padEnd(16)}${(latencies.length / duration).toFixed(0).padStart(10)}${at(0.5).toFixed(1).padStart(9)}${at(0.99).toFixed(1).padStart(9)}  ${Number(rows[0].total) === latencies.length ? 'yes' : `no (${rows[0].total} of ${latencies.length})`}`,
    );
    recordFigure(
      'Figure layouts (PostgreSQL)',
      `a hot figure as ${name}, ${WRITERS} writers (PG)`,
      `${(latencies.length / duration).toFixed(0)} tx/s, p99 ${at(0.99).toFixed(1)} ms${Number(rows[0].total) === latencies.length ? '' : ', inexact'}`,
    );
  }
  await Promise.all(clients.map((client) => client.end()));
  await setup.end();
} finally {
  await database.drop();
}
