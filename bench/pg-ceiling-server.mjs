// The PostgreSQL ceiling of issue 15: Fastify and pg with nothing of Vouch, on the bench's schema.
// GET /read is one point read; POST /write is a point read, then an insert (a write decided on a
// read: the least a sale can be). Vouch's PostgreSQL figures are read against these.
import Fastify from 'fastify';
import pg from 'pg';

const url = new URL(process.env.DATABASE_URL);
const schema = url.searchParams.get('schema') ?? 'public';
url.searchParams.delete('schema');
const pool = new pg.Pool({
  connectionString: url.toString(),
  max: Number(process.env.DATABASE_POOL_SIZE ?? 8),
  options: `-c search_path=${schema}`,
});
const setup = await pool.connect();
await setup.query(`create schema if not exists ${schema}`);
await setup.query(`set search_path = ${schema}`);
await setup.query(
  'create table if not exists ceiling_buyers (id bigserial primary key, key text unique, total bigint not null default 0)',
);
await setup.query(
  'create table if not exists ceiling_sales (id bigserial primary key, key text unique, buyer_id bigint not null, amount bigint not null, created_at text not null)',
);
await setup.query(
  "insert into ceiling_buyers (key) select 'c' || g from generate_series(0, 999) g on conflict do nothing",
);
setup.release();

const read = { name: 'ceiling_read', text: 'select id, key, total from ceiling_buyers where key = $1' };
const insert = {
  name: 'ceiling_insert',
  text: 'insert into ceiling_sales (key, buyer_id, amount, created_at) values ($1, $2, $3, $4) returning id',
};
let n = 0;
const app = Fastify();
app.get('/read', async () => {
  const { rows } = await pool.query({ ...read, values: [`c${n++ % 1000}`] });
  return { data: rows[0] };
});
app.post('/write', async (request) => {
  const body = request.body;
  const { rows } = await pool.query({ ...read, values: [`c${n++ % 1000}`] });
  const written = await pool.query({
    ...insert,
    values: [body.key, rows[0].id, Math.round(body.amount * 1e6), new Date().toISOString()],
  });
  return { data: { id: written.rows[0].id, buyer: rows[0].id } };
});
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.on('SIGTERM', () =>
  app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0)),
);
