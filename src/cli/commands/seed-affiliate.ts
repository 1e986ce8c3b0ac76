import type { Deps } from '../../context.ts';
import { partnerMetrics } from '../../core/commissions.ts';
import { randomAlphanumeric } from '../../core/ids.ts';
import { programMetrics } from '../../core/program-stats.ts';
import { decideAffiliateSale } from '../../core/sales.ts';
import { formatTimestamp } from '../../core/time.ts';
import {
  type BulkRow,
  type BulkWriter,
  type CounterRow,
  nextFreeId,
  openBulkWriter,
} from '../../db/bulk-load.ts';
import { recordProgramActivity } from '../../modules/program/program.service.ts';
import { affiliateProgramSettings } from '../../modules/transactions/transactions.affiliate.ts';
import { UsageError } from './command.ts';
import { FigureTotals, ProgramDays } from './seed-figures.ts';
import { seedProgram } from './seed-program.ts';

/**
 * `vouch seed --partners N --customers N --transactions N [--program ID]`: bulk demo and bench
 * data for an affiliate program (a new one unless `--program` names one). The rows go in through
 * a bulk writer (db/bulk-load.ts), and the counters the API reads are written from the same
 * generated figures. No events are recorded: seeded rows are history, not live changes. Run it
 * while no server writes to the database.
 */

const CHUNK = 50_000;
const DAY_MICROS = 86_400_000_000;
const SEEDED_TABLES = ['partners', 'referral_links', 'customers', 'transactions', 'rewards'];

const PARTNER_COLUMNS = [
  'id',
  'program_id',
  'public_id',
  'email',
  'name',
  'surname',
  'tags',
  'created_at',
  'updated_at',
];
const LINK_COLUMNS = ['id', 'program_id', 'key', 'partner_id', 'is_default', 'created_at', 'updated_at'];
const CUSTOMER_COLUMNS = [
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
];
const TRANSACTION_COLUMNS = [
  'id',
  'program_id',
  'key',
  'customer_id',
  'customer_key',
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
];
const REWARD_COLUMNS = [
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
];

export interface AffiliateSeed {
  programId?: number;
  partners: number;
  customers: number;
  transactions: number;
}

/** What every phase of one seed shares: counts, the first free ids, the time span, the prefix. */
interface Plan extends AffiliateSeed {
  programId: number;
  settings: Awaited<ReturnType<typeof affiliateProgramSettings>>;
  prefix: string;
  first: { partner: number; link: number; customer: number; transaction: number };
  /** Signups spread over the last 60 days, sales over the last 30; ids follow creation order. */
  now: number;
  customerStart: number;
  saleStart: number;
}

const at = (plan: Plan, start: number, i: number, n: number) =>
  formatTimestamp(start + Math.floor(((plan.now - start) * i) / Math.max(1, n)));
/** Customer `i` came through partner `i % partners` and its default link. */
const partnerOf = (plan: Plan, customer: number) => customer % Math.max(1, plan.partners);
const customerCreatedAt = (plan: Plan, i: number) => at(plan, plan.customerStart, i, plan.customers);

export async function seedAffiliate(deps: Deps, input: AffiliateSeed) {
  const started = performance.now();
  if (input.customers > 0 && input.partners === 0) throw new UsageError('customers need --partners');
  if (input.transactions > 0 && input.customers === 0) throw new UsageError('transactions need --customers');
  const program = await seedProgram(deps, 'affiliate', input.programId, {
    name: 'Seeded affiliate program',
    website: 'https://shop.example.com',
  });
  const db = deps.database.db;
  const now = deps.clock.nowMicros();
  const plan: Plan = {
    ...input,
    programId: program.id,
    settings: await affiliateProgramSettings(db, program.id),
    prefix: randomAlphanumeric(4),
    first: {
      partner: await nextFreeId(db, 'partners'),
      link: await nextFreeId(db, 'referral_links'),
      customer: await nextFreeId(db, 'customers'),
      transaction: await nextFreeId(db, 'transactions'),
    },
    now,
    customerStart: now - 60 * DAY_MICROS,
    saleStart: now - 30 * DAY_MICROS,
  };
  const programDays = new ProgramDays();
  const writer = openBulkWriter(deps.database, deps.config.databaseUrl);
  try {
    await writer.begin(SEEDED_TABLES);
    await writePartners(writer, plan);
    await writeCustomers(writer, plan, programDays);
    const saleFigures = await writeSales(writer, plan, programDays);
    await writeCounters(writer, plan, saleFigures);
    await writer.finish(SEEDED_TABLES);
  } finally {
    writer.close();
  }
  for (const [day, deltas] of programDays.days()) await recordProgramActivity(db, program.id, day, deltas);
  return {
    ...program.shown,
    seeded: {
      partners: input.partners,
      customers: input.customers,
      transactions: input.transactions,
      key_prefix: plan.prefix,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    },
  };
}

/** Partners and their default links. */
async function writePartners(writer: BulkWriter, plan: Plan): Promise<void> {
  const created = formatTimestamp(plan.customerStart - DAY_MICROS);
  const { programId, prefix } = plan;
  for (let from = 0; from < plan.partners; from += CHUNK) {
    const partners: BulkRow[] = [];
    const links: BulkRow[] = [];
    for (let i = from; i < Math.min(plan.partners, from + CHUNK); i++) {
      const id = plan.first.partner + i;
      const email = `${prefix.toLowerCase()}.p${i}@partners.example`;
      partners.push([id, programId, `${prefix}P${i}`, email, `Partner ${i}`, null, '[]', created, created]);
      links.push([plan.first.link + i, programId, `${prefix}p${i}`, id, true, created, created]);
    }
    await writer.insert('partners', PARTNER_COLUMNS, partners);
    await writer.insert('referral_links', LINK_COLUMNS, links);
  }
}

/** The key of the seed's `i`-th customer, which its sales also keep (migration 0043). */
const customerKey = (prefix: string, i: number) => `${prefix}c${i}`;

async function writeCustomers(writer: BulkWriter, plan: Plan, programDays: ProgramDays): Promise<void> {
  const { programId, prefix } = plan;
  for (let from = 0; from < plan.customers; from += CHUNK) {
    const rows: BulkRow[] = [];
    for (let i = from; i < Math.min(plan.customers, from + CHUNK); i++) {
      const partner = partnerOf(plan, i);
      const created = customerCreatedAt(plan, i);
      rows.push([
        plan.first.customer + i,
        programId,
        `${prefix}U${i}`,
        customerKey(prefix, i),
        `${prefix.toLowerCase()}.c${i}@customers.example`,
        `Customer ${i}`,
        plan.first.partner + partner,
        plan.first.link + partner,
        created,
        created,
      ]);
      programDays.add(created, { [programMetrics.customers]: 1n, [programMetrics.referredCustomers]: 1n });
    }
    await writer.insert('customers', CUSTOMER_COLUMNS, rows);
  }
}

/**
 * Transactions with their commissions, each decided by the same rule as a live sale
 * (core/sales.ts); the entity figures they move are summed in memory and returned.
 */
async function writeSales(writer: BulkWriter, plan: Plan, programDays: ProgramDays): Promise<FigureTotals> {
  const { programId, prefix, settings } = plan;
  const currency = settings.currency;
  const saleFigures = new FigureTotals();
  const customerSales = new Uint32Array(plan.customers);
  for (let from = 0; from < plan.transactions; from += CHUNK) {
    const transactions: BulkRow[] = [];
    const rewards: BulkRow[] = [];
    for (let i = from; i < Math.min(plan.transactions, from + CHUNK); i++) {
      // Spread sales over customers without a random generator: a fixed odd stride visits all.
      const customer = (i * 7919) % plan.customers;
      const amount = (10 + ((i * 37) % 190)) * 1_000_000 + ((i * 13) % 100) * 10_000;
      const created = at(plan, plan.saleStart, i, plan.transactions);
      const id = plan.first.transaction + i;
      const decision = decideAffiliateSale(
        settings.commissions,
        {
          buyer: {
            id: plan.first.customer + customer,
            since: customerCreatedAt(plan, customer),
            salesBefore: customerSales[customer] ?? 0,
          },
          partner: { id: plan.first.partner + partnerOf(plan, customer), archived: false, parentId: null },
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
        customerKey(prefix, customer),
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
      programDays.add(created, decision.figures.program);
    }
    await writer.insert('transactions', TRANSACTION_COLUMNS, transactions);
    await writer.insert('rewards', REWARD_COLUMNS, rewards);
  }
  return saleFigures;
}

/** Counters: what the API reads instead of scanning history. */
async function writeCounters(writer: BulkWriter, plan: Plan, saleFigures: FigureTotals): Promise<void> {
  const { programId } = plan;
  const partnerSignups = new Float64Array(plan.partners);
  for (let i = 0; i < plan.customers; i++) {
    const p = partnerOf(plan, i);
    partnerSignups[p] = (partnerSignups[p] ?? 0) + 1;
  }
  let counters: CounterRow[] = [];
  const flush = async (force = false) => {
    if (counters.length >= CHUNK || (force && counters.length > 0)) {
      await writer.addCounters(counters);
      counters = [];
    }
  };
  for (let p = 0; p < plan.partners; p++) {
    const signups = partnerSignups[p] ?? 0;
    if (signups === 0) continue;
    counters.push([programId, 'partner', plan.first.partner + p, partnerMetrics.signups, signups]);
    counters.push([programId, 'link', plan.first.link + p, partnerMetrics.signups, signups]);
    await flush();
  }
  for (const change of saleFigures.changes()) {
    counters.push([programId, change.kind, change.id, change.metric, change.value]);
    await flush();
  }
  await flush(true);
}
