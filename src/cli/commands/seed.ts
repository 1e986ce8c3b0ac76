import type Database from 'better-sqlite3';
import { sql } from 'kysely';
import type { Deps } from '../../context.ts';
import { partnerMetrics } from '../../core/commissions.ts';
import { randomAlphanumeric } from '../../core/ids.ts';
import { programMetrics } from '../../core/program-stats.ts';
import { decideAffiliateSale, type FigureChange } from '../../core/sales.ts';
import { formatTimestamp } from '../../core/time.ts';
import { COUNTER_BASE, carryingUpdate, splitCounterDelta } from '../../db/counter-parts.ts';
import { openSqlite } from '../../db/sqlite.ts';
import { createProgramWithKey, recordProgramActivity } from '../../modules/program/program.service.ts';
import { affiliateProgramSettings } from '../../modules/transactions/transactions.affiliate.ts';
import { type Command, options, UsageError } from './command.ts';
import { seedNewsletter } from './seed-newsletter.ts';

/**
 * `vouch seed --partners N --customers N --transactions N [--program ID]`: bulk demo and bench
 * data for an affiliate program (a new one unless `--program` names one). Rows go in with
 * prepared statements in large transactions (SQLite file) or multi-row inserts (PostgreSQL), and the
 * counters the API reads are written from the same generated figures. No events are recorded:
 * seeded rows are history, not live changes. Run it while no server writes to the database.
 */

const CHUNK = 50_000;
/** Bound values per multi-row SQLite statement (well under SQLite's limit of 32,766). */
const MAX_VARIABLES = 2_000;
const DAY_MICROS = 86_400_000_000;
const SEEDED_TABLES = ['partners', 'referral_links', 'customers', 'transactions', 'rewards'];

type Row = unknown[];

/** A counter row `[program, kind, owner, metric, value]` with its value split (db/counter-parts.ts). */
const splitFigure = (row: Row): Row => [...row.slice(0, 4), ...splitCounterDelta(row[4] as bigint | number)];
const carrying = carryingUpdate('entity_counters');

interface BulkWriter {
  /** Starts the load into these tables (SQLite: one transaction, their indexes set aside). */
  begin(tables: readonly string[]): Promise<void>;
  insert(table: string, columns: readonly string[], rows: readonly Row[]): Promise<void>;
  /** Adds to `entity_counters` (creating rows as needed). */
  addCounters(rows: readonly Row[]): Promise<void>;
  /** Ends the load: indexes rebuilt and committed (SQLite); id sequences moved past the explicit ids (PostgreSQL). */
  finish(tables: readonly string[]): Promise<void>;
  close(): void;
}

function sqliteWriter(url: string): BulkWriter {
  const { raw } = openSqlite(url);
  // Generated rows reference only rows generated before them; checking each reference would cost a
  // lookup per column per row.
  raw.pragma('foreign_keys = OFF');
  let setAside: { name: string; sql: string }[] = [];
  const statements = new Map<string, Database.Statement>();
  const statement = (text: string) => {
    let prepared = statements.get(text);
    if (!prepared) {
      prepared = raw.prepare(text);
      statements.set(text, prepared);
    }
    return prepared;
  };
  const bind = (row: Row) => row.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
  const runAll = (text: string, rows: readonly Row[]) => {
    const prepared = statement(text);
    raw.transaction(() => {
      for (const row of rows) prepared.run(...bind(row));
    })();
  };
  // Many rows per statement: one call into the driver per few hundred rows instead of one per row.
  const insertMany = (table: string, columns: readonly string[], rows: readonly Row[]) => {
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    const perStatement = Math.max(1, Math.floor(MAX_VARIABLES / columns.length));
    const text = (n: number) =>
      `insert into ${table} (${columns.join(', ')}) values ${Array(n).fill(tuple).join(', ')}`;
    raw.transaction(() => {
      for (let from = 0; from < rows.length; from += perStatement) {
        const slice = rows.slice(from, from + perStatement);
        const values: unknown[] = [];
        for (const row of slice) for (const v of row) values.push(typeof v === 'boolean' ? (v ? 1 : 0) : v);
        statement(text(slice.length)).run(values);
      }
    })();
  };
  return {
    async insert(table, columns, rows) {
      insertMany(table, columns, rows);
    },
    async addCounters(rows) {
      runAll(
        `insert into entity_counters (program_id, owner_kind, owner_id, metric, value, value_hi)
         values (?, ?, ?, ?, ?, ?)
         on conflict (program_id, owner_kind, owner_id, metric, slot) do update set
           value = (value + excluded.value) % ${COUNTER_BASE},
           value_hi = value_hi + excluded.value_hi + (value + excluded.value) / ${COUNTER_BASE}`,
        rows.map(splitFigure),
      );
    },
    // A bulk load into indexed tables is mostly random B-tree inserts; building each index once,
    // after the rows, sorts instead. All of it is one transaction, so a failed seed leaves the
    // database as it was, indexes included.
    async begin(tables) {
      raw.exec('begin immediate');
      const placeholders = tables.map(() => '?').join(', ');
      setAside = raw
        .prepare(
          `select name, sql from sqlite_master where type = 'index' and sql is not null and tbl_name in (${placeholders})`,
        )
        .all(...tables) as { name: string; sql: string }[];
      for (const index of setAside) raw.exec(`drop index "${index.name}"`);
    },
    async finish() {
      for (const index of setAside) raw.exec(index.sql);
      raw.exec('commit');
    },
    close: () => {
      if (raw.inTransaction) raw.exec('rollback');
      raw.close();
    },
  };
}

/** Multi-row inserts through Kysely: PostgreSQL, and in-memory SQLite (one connection only). */
function kyselyWriter(deps: Deps): BulkWriter {
  const db = deps.database.db;
  const batch = async (
    text: (values: ReturnType<typeof sql.join>) => ReturnType<typeof sql>,
    rows: readonly Row[],
  ) => {
    const size = Math.max(1, Math.floor(30_000 / (rows[0]?.length ?? 1)));
    for (let i = 0; i < rows.length; i += size) {
      const values = sql.join(rows.slice(i, i + size).map((row) => sql`(${sql.join(row)})`));
      await text(values).execute(db);
    }
  };
  return {
    async begin() {},
    async insert(table, columns, rows) {
      await batch(
        (values) =>
          sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) values ${values}`,
        rows,
      );
    },
    async addCounters(rows) {
      await batch(
        (values) =>
          sql`insert into entity_counters (program_id, owner_kind, owner_id, metric, value, value_hi)
              values ${values}
              on conflict (program_id, owner_kind, owner_id, metric, slot)
              do update set ${sql.join([sql`value = ${carrying.value}`, sql`value_hi = ${carrying.value_hi}`])}`,
        rows.map(splitFigure),
      );
    },
    async finish(tables) {
      if (deps.database.dialect !== 'postgres') return;
      for (const table of tables) {
        await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select max(id) from ${sql.table(table)}))`.execute(
          db,
        );
      }
    },
    close: () => {},
  };
}

async function nextId(deps: Deps, table: 'partners' | 'customers' | 'referral_links' | 'transactions') {
  const row = await deps.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.max('id').as('max'))
    .executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}

/** Sums of many decisions' entity figures, by owner and metric, in exact micro-units. */
class FigureTotals {
  readonly #byKind = new Map<FigureChange['kind'], Map<number, Map<string, bigint>>>();

  add(changes: readonly FigureChange[]): void {
    for (const change of changes) {
      let owners = this.#byKind.get(change.kind);
      if (!owners) {
        owners = new Map();
        this.#byKind.set(change.kind, owners);
      }
      let figures = owners.get(change.id);
      if (!figures) {
        figures = new Map();
        owners.set(change.id, figures);
      }
      figures.set(change.metric, (figures.get(change.metric) ?? 0n) + change.value);
    }
  }

  *changes(): Generator<FigureChange> {
    for (const [kind, owners] of this.#byKind)
      for (const [id, figures] of owners)
        for (const [metric, value] of figures) if (value !== 0n) yield { kind, id, metric, value };
  }
}

function count(value: string | undefined, flag: string): number {
  const n = Number(value ?? 0);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a whole number`);
  return n;
}

export async function seedAffiliate(
  deps: Deps,
  input: { programId?: number; partners: number; customers: number; transactions: number },
) {
  const started = performance.now();
  let program: unknown;
  let programId = input.programId;
  if (programId === undefined) {
    const created = await createProgramWithKey(deps, {
      name: 'Seeded affiliate program',
      type: 'affiliate',
      website: 'https://shop.example.com',
    });
    program = created;
    programId = created.program.id;
  } else {
    const row = await deps.database.db
      .selectFrom('programs')
      .select(['id', 'type'])
      .where('id', '=', programId)
      .executeTakeFirst();
    if (row?.type !== 'affiliate') throw new UsageError('--program must name an affiliate program');
  }
  if (input.customers > 0 && input.partners === 0) throw new UsageError('customers need --partners');
  if (input.transactions > 0 && input.customers === 0) throw new UsageError('transactions need --customers');

  const onFile = deps.database.dialect === 'sqlite' && !deps.config.databaseUrl.endsWith(':memory:');
  const writer = onFile ? sqliteWriter(deps.config.databaseUrl) : kyselyWriter(deps);
  const settings = await affiliateProgramSettings(deps.database.db, programId);
  const currency = settings.currency;
  const prefix = randomAlphanumeric(4);
  const now = deps.clock.nowMicros();
  // Signups spread over the last 60 days, sales over the last 30; ids follow creation order.
  const customerStart = now - 60 * DAY_MICROS;
  const saleStart = now - 30 * DAY_MICROS;
  const at = (start: number, i: number, n: number) =>
    formatTimestamp(start + Math.floor(((now - start) * i) / Math.max(1, n)));

  const firstPartner = await nextId(deps, 'partners');
  const firstLink = await nextId(deps, 'referral_links');
  const firstCustomer = await nextId(deps, 'customers');
  const firstTransaction = await nextId(deps, 'transactions');
  await writer.begin(SEEDED_TABLES);
  const programDays = new Map<string, Record<string, bigint>>();
  const addDay = (timestamp: string, deltas: Record<string, bigint>) => {
    const day = timestamp.slice(0, 10);
    const figures = programDays.get(day) ?? {};
    for (const [metric, value] of Object.entries(deltas)) figures[metric] = (figures[metric] ?? 0n) + value;
    programDays.set(day, figures);
  };

  // Partners and their default links.
  const partnerCreated = formatTimestamp(customerStart - DAY_MICROS);
  for (let from = 0; from < input.partners; from += CHUNK) {
    const partners: Row[] = [];
    const links: Row[] = [];
    for (let i = from; i < Math.min(input.partners, from + CHUNK); i++) {
      const id = firstPartner + i;
      partners.push([
        id,
        programId,
        `${prefix}P${i}`,
        `${prefix.toLowerCase()}.p${i}@partners.example`,
        `Partner ${i}`,
        null,
        '[]',
        partnerCreated,
        partnerCreated,
      ]);
      links.push([firstLink + i, programId, `${prefix}p${i}`, id, true, partnerCreated, partnerCreated]);
    }
    await writer.insert(
      'partners',
      ['id', 'program_id', 'public_id', 'email', 'name', 'surname', 'tags', 'created_at', 'updated_at'],
      partners,
    );
    await writer.insert(
      'referral_links',
      ['id', 'program_id', 'key', 'partner_id', 'is_default', 'created_at', 'updated_at'],
      links,
    );
  }

  // Customers, each with the partner `i % partners` and its default link.
  const partnerOf = (customer: number) => customer % Math.max(1, input.partners);
  const customerCreatedAt = (i: number) => at(customerStart, i, input.customers);
  for (let from = 0; from < input.customers; from += CHUNK) {
    const rows: Row[] = [];
    for (let i = from; i < Math.min(input.customers, from + CHUNK); i++) {
      const partner = partnerOf(i);
      const created = customerCreatedAt(i);
      rows.push([
        firstCustomer + i,
        programId,
        `${prefix}U${i}`,
        `${prefix}c${i}`,
        `${prefix.toLowerCase()}.c${i}@customers.example`,
        `Customer ${i}`,
        firstPartner + partner,
        firstLink + partner,
        created,
        created,
      ]);
      addDay(created, { [programMetrics.customers]: 1n, [programMetrics.referredCustomers]: 1n });
    }
    await writer.insert(
      'customers',
      [
        'id',
        'program_id',
        'public_id',
        'key',
        'email',
        'name',
        'partner_id',
        'referral_link_id',
        'created_at',
        'updated_at',
      ],
      rows,
    );
  }

  // Transactions with their commissions, each decided by the same rule as a live sale
  // (core/sales.ts); the figures they move accumulate in memory and are written once.
  const saleFigures = new FigureTotals();
  const customerSales = new Uint32Array(input.customers);
  for (let from = 0; from < input.transactions; from += CHUNK) {
    const transactions: Row[] = [];
    const rewards: Row[] = [];
    for (let i = from; i < Math.min(input.transactions, from + CHUNK); i++) {
      // Spread sales over customers without a random generator: a fixed odd stride visits all.
      const customer = (i * 7919) % input.customers;
      const partner = partnerOf(customer);
      const amount = (10 + ((i * 37) % 190)) * 1_000_000 + ((i * 13) % 100) * 10_000;
      const created = at(saleStart, i, input.transactions);
      const id = firstTransaction + i;
      const decision = decideAffiliateSale(
        settings.commissions,
        {
          buyer: {
            id: firstCustomer + customer,
            since: customerCreatedAt(customer),
            salesBefore: customerSales[customer] ?? 0,
          },
          partner: { id: firstPartner + partner, archived: false, parentId: null },
          programCurrency: currency,
        },
        {
          amountMicros: BigInt(amount),
          currency,
          rewardable: true,
          rewarded: false,
          productId: null,
          productType: null,
          at: created,
        },
      );
      transactions.push([
        id,
        programId,
        `${prefix}t${i}`,
        decision.customerId,
        decision.partnerId,
        'sale',
        amount,
        decision.currency,
        true,
        false,
        false,
        true,
        'seed',
        created,
      ]);
      for (const reward of decision.rewards) {
        rewards.push([
          programId,
          id,
          reward.partnerId,
          reward.role,
          reward.status,
          reward.amountMicros,
          reward.units,
          true,
          false,
          reward.commissionType,
          reward.commissionValue,
          reward.availableAt,
          created,
        ]);
      }
      customerSales[customer] = (customerSales[customer] ?? 0) + 1;
      saleFigures.add(decision.figures.entities);
      addDay(created, decision.figures.program);
    }
    await writer.insert(
      'transactions',
      [
        'id',
        'program_id',
        'key',
        'customer_id',
        'partner_id',
        'action',
        'amount',
        'amount_units',
        'is_currency',
        'credit',
        'rewarded',
        'rewardable',
        'request_digest',
        'created_at',
      ],
      transactions,
    );
    await writer.insert(
      'rewards',
      [
        'program_id',
        'transaction_id',
        'partner_id',
        'role',
        'status',
        'amount',
        'amount_units',
        'is_currency',
        'credit',
        'commission_type',
        'commission_value',
        'available_at',
        'created_at',
      ],
      rewards,
    );
  }

  // Counters: what the API reads instead of scanning history.
  const partnerSignups = new Float64Array(input.partners);
  for (let i = 0; i < input.customers; i++) {
    const p = partnerOf(i);
    partnerSignups[p] = (partnerSignups[p] ?? 0) + 1;
  }
  let counters: Row[] = [];
  const flush = async (force = false) => {
    if (counters.length >= CHUNK || (force && counters.length > 0)) {
      await writer.addCounters(counters);
      counters = [];
    }
  };
  for (let p = 0; p < input.partners; p++) {
    const signups = partnerSignups[p] ?? 0;
    if (signups === 0) continue;
    counters.push([programId, 'partner', firstPartner + p, partnerMetrics.signups, signups]);
    counters.push([programId, 'link', firstLink + p, partnerMetrics.signups, signups]);
    await flush();
  }
  for (const change of saleFigures.changes()) {
    counters.push([programId, change.kind, change.id, change.metric, change.value]);
    await flush();
  }
  await flush(true);
  await writer.finish(SEEDED_TABLES);
  writer.close();
  for (const [day, deltas] of programDays) {
    await recordProgramActivity(deps.database.db, programId, `${day}T00:00:00.000000Z`, deltas);
  }
  return {
    ...(program ? (program as object) : { program: { id: programId } }),
    seeded: {
      partners: input.partners,
      customers: input.customers,
      transactions: input.transactions,
      key_prefix: prefix,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    },
  };
}

export const seed: Command = {
  name: 'seed',
  async run(deps, args) {
    const { values } = options(args, {
      partners: { type: 'string' },
      customers: { type: 'string' },
      transactions: { type: 'string' },
      subscribers: { type: 'string' },
      program: { type: 'string' },
    });
    if (values.subscribers !== undefined) {
      return seedNewsletter(deps, {
        ...(values.program !== undefined ? { programId: count(values.program, '--program') } : {}),
        subscribers: count(values.subscribers, '--subscribers'),
      });
    }
    return seedAffiliate(deps, {
      ...(values.program !== undefined ? { programId: count(values.program, '--program') } : {}),
      partners: count(values.partners, '--partners'),
      customers: count(values.customers, '--customers'),
      transactions: count(values.transactions, '--transactions'),
    });
  },
};
