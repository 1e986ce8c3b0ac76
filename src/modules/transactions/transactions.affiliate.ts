import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { ProgramContext } from '../../context.ts';
import { booleanOf } from '../../core/booleans.ts';
import {
  type CommissionRule,
  type CommissionSettings,
  defaultCommissionSettings,
  partnerMetrics,
} from '../../core/commissions.ts';
import { AppError, fieldError } from '../../core/errors.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { decideAffiliateSale } from '../../core/sales.ts';
import { uniqueViolationColumn } from '../../db/errors.ts';
import { withSavepoint } from '../../db/savepoint.ts';
import type { DB } from '../../db/tables.ts';
import { CounterFigures, readEntityCounters } from '../counters/counters.repository.ts';
import {
  type CustomerRow,
  findCustomerByRefForUpdate,
  insertAffiliateCustomer,
} from '../customers/customers.service.ts';
import { findPartnerById } from '../partners/partners.service.ts';
import { readProgram } from '../program/program.service.ts';
import type { AffiliateTransaction, AffiliateTransactionCustomer } from './transactions.affiliate.schemas.ts';
import { toAffiliateTransaction } from './transactions.affiliate.stored.ts';
import * as repository from './transactions.repository.ts';
import type { SaleEntry, SaleHandler, SaleHints, UnlockedRead } from './transactions.shared.ts';

/** Sales of affiliate programs: the customer's partner earns a commission (and its parent, tier two). */

type Customer = Partial<Static<typeof AffiliateTransactionCustomer>>;

type Partner = NonNullable<Awaited<ReturnType<typeof findPartnerById>>>;

interface AffiliateProgramSettings {
  currency: string;
  commissions: CommissionSettings;
}

/** The program's currency and commission settings, defaults filled in. */
export async function affiliateProgramSettings(
  db: Kysely<DB>,
  programId: number,
): Promise<AffiliateProgramSettings> {
  const row = await readProgram(db, programId);
  return affiliateSettingsOf(row?.settings ?? '{}');
}

/** The currency and commission settings of a program's stored settings (JSON text). */
function affiliateSettingsOf(stored: string): AffiliateProgramSettings {
  const settings = programSettingsOf('affiliate', stored) as Record<string, unknown>;
  const commission = { ...defaultCommissionSettings.commission, ...(settings.commission as object) };
  return {
    currency: String(settings.currency ?? 'USD').toUpperCase(),
    commissions: {
      commission: { ...commission, duration_value: commission.duration_value ?? null },
      product_commissions: (settings.product_commissions as CommissionSettings['product_commissions']) ?? [],
      commission_hold_days: Number(settings.commission_hold_days ?? 0),
      commission_auto_approve: settings.commission_auto_approve !== false,
      tier2_commission: (settings.tier2_commission as CommissionSettings['tier2_commission']) ?? null,
    },
  };
}

/** What an affiliate sale's decision needs, read in the sale's transaction. */
interface AffiliatePrepared {
  settings: AffiliateProgramSettings;
  buyer: CustomerRow;
  partner: Partner | undefined;
  /** Public ids of the partners the sale's rewards may name (the partner and its parent). */
  partnerIds: Map<number, string>;
  salesBefore: number;
}

/**
 * Creates the buyer a sale names (`options.create_customer`). Two requests creating one buyer at
 * once: the loser's insert is rolled back to its savepoint and the sale goes to the winner's
 * customer; a clash on another field (an e-mail of another customer) is a 422 on that field.
 */
async function createBuyer(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  input: Customer,
  attributed: string | undefined,
  context: SaleEntry<Customer>['context'],
): Promise<CustomerRow> {
  const named = input.partner && Object.keys(input.partner).length > 0 ? input.partner : undefined;
  // Without a partner, the sale's promotion code may name one (limited to exactly one partner).
  const partner = named ?? (attributed !== undefined ? { id: attributed } : undefined);
  if (!partner) throw fieldError('customer.partner', 'required');
  try {
    return await withSavepoint(trx, () =>
      insertAffiliateCustomer(
        trx,
        ctx,
        {
          ...(input.key !== undefined ? { key: input.key } : {}),
          ...(input.email !== undefined ? { email: input.email } : {}),
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.surname !== undefined ? { surname: input.surname } : {}),
          ...(input.created_at !== undefined ? { created_at: input.created_at } : {}),
          partner,
          ...(context !== undefined ? { context } : {}),
        },
        'customer.',
      ),
    );
  } catch (error) {
    const column = uniqueViolationColumn(error) ?? takenBeforeInsert(error);
    if (column === undefined) throw error;
    const winner = await findBuyer(trx, ctx.program.id, input);
    if (winner) return winner;
    const field = column === 'email' ? 'customer.email' : 'customer.key';
    throw fieldError(field, 'taken');
  }
}

/**
 * The buyer's key or e-mail found taken by the check before the insert: another request created
 * the buyer after this sale looked for it (it committed in between, on PostgreSQL).
 */
function takenBeforeInsert(error: unknown): 'email' | 'key' | undefined {
  if (!(error instanceof AppError) || error.code !== 'validation_failed') return undefined;
  if (error.problemOn('customer.email')) return 'email';
  if (error.problemOn('customer.key')) return 'key';
  return undefined;
}

/**
 * The buyer by `key`, or by `email` when no key is given, locked until the sale's transaction
 * ends (PostgreSQL): sales of one buyer are decided one after another, each on the sale count the
 * previous one left.
 */
function findBuyer(db: Kysely<DB>, programId: number, input: Customer) {
  return input.key !== undefined
    ? findCustomerByRefForUpdate(db, programId, { key: input.key })
    : findCustomerByRefForUpdate(db, programId, { email: input.email });
}

async function prepare(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  entry: SaleEntry<Customer>,
  hints: SaleHints = {},
): Promise<AffiliatePrepared> {
  const programId = ctx.program.id;
  const input = entry.customer;
  if (input.key === undefined && input.email === undefined) throw fieldError('customer.key', 'required');
  // PostgreSQL reads and locks everything in one statement; SQLite's reads are in-process calls.
  const found = await repository.findAffiliateBuyerForSale(trx, programId, input);
  if (found) return preparedFrom(found);
  let buyer = await findBuyer(trx, programId, input);
  if (!buyer) {
    if (!booleanOf(entry.options?.create_customer, false)) throw fieldError('customer', 'invalid');
    // A buyer this sale inserted is invisible to others until the commit; one another request
    // inserted first is found locked (createBuyer).
    buyer = await createBuyer(trx, ctx, input, hints.partner, entry.context);
  }
  const [settings, figures, partner] = await Promise.all([
    affiliateProgramSettings(trx, programId),
    readEntityCounters(trx, programId, { kind: 'customer', id: buyer.id }),
    buyer.partner_id === null ? undefined : findPartnerById(trx, programId, buyer.partner_id),
  ]);
  const partnerIds = new Map<number, string>();
  if (partner) {
    partnerIds.set(partner.id, partner.public_id);
    const parentId = partner.referring_partner_id;
    if (parentId !== null && settings.commissions.tier2_commission !== null) {
      const parent = await findPartnerById(trx, programId, parentId);
      if (parent) partnerIds.set(parent.id, parent.public_id);
    }
  }
  return {
    settings,
    buyer,
    partner,
    partnerIds,
    salesBefore: Number(figures.get(partnerMetrics.salesCount) ?? 0),
  };
}

/** What `prepare` reads, from the one PostgreSQL statement that also found and locked the buyer. */
function preparedFrom(found: repository.AffiliateBuyerForSale): AffiliatePrepared {
  const { program_settings, figures, partner, parent, ...buyer } = found;
  const settings = affiliateSettingsOf(program_settings);
  const partnerIds = new Map<number, string>();
  if (partner) {
    partnerIds.set(partner.id, partner.public_id);
    if (parent && settings.commissions.tier2_commission !== null) partnerIds.set(parent[0], parent[1]);
  }
  const counters = CounterFigures.of(
    figures.map(([metric, value, value_hi]) => ({ metric, value, value_hi })),
  );
  return {
    settings,
    buyer,
    partner: partner ?? undefined,
    partnerIds,
    salesBefore: Number(counters.get(partnerMetrics.salesCount) ?? 0),
  };
}

/**
 * The sale writer's unlocked read (PostgreSQL): the buyer and the rest in one statement, with
 * its version; undefined when the buyer does not exist (yet).
 */
export async function readAffiliateUnlocked(
  db: Kysely<DB>,
  ctx: ProgramContext,
  entry: SaleEntry<Customer>,
): Promise<UnlockedRead<AffiliatePrepared> | undefined> {
  const read = await repository.readAffiliateBuyerForSale(db, ctx.program.id, entry.customer);
  if (!read) return undefined;
  const { sale_id, reward_ids, subscribed, ...found } = read;
  return {
    prepared: preparedFrom(found),
    version: Number(found.sale_version),
    saleId: Number(sale_id),
    rewardIds: reward_ids.map(Number),
    subscribed,
  };
}

export const affiliateSales: SaleHandler<Customer, AffiliatePrepared, AffiliateTransaction> = {
  prepare,
  salesBefore: (prepared) => prepared.salesBefore,
  buyerKey: (prepared) => prepared.buyer.key,
  decide: (prepared, sale, fraud) =>
    decideAffiliateSale(
      prepared.settings.commissions,
      {
        buyer: {
          id: prepared.buyer.id,
          since: prepared.buyer.created_at,
          salesBefore: prepared.salesBefore,
          selfReferral: Boolean(prepared.buyer.self_referral),
          heldBy: prepared.buyer.fraud_flag,
        },
        partner: prepared.partner
          ? {
              id: prepared.partner.id,
              archived: prepared.partner.status === 'archived',
              parentId: prepared.partner.referring_partner_id,
            }
          : null,
        programCurrency: prepared.settings.currency,
        ...(fraud !== undefined ? { fraud } : {}),
      },
      sale,
    ),
  created: (prepared, row, rewards) =>
    toAffiliateTransaction(row, rewards, prepared.partnerIds, prepared.buyer.key, row.created_at),
  names: (prepared, row) => ({
    partners: prepared.partnerIds,
    sales: new Map([[row.id, { key: row.key, customer_key: prepared.buyer.key }]]),
  }),
};

/**
 * Affiliate sales that earn `rule` instead of the program's commission and product rules (a
 * converted lead's, when the lead setup has a commission of its own); hold days and tier two stay
 * the program's.
 */
export function affiliateSalesEarning(
  rule: CommissionRule,
): SaleHandler<Customer, AffiliatePrepared, AffiliateTransaction> {
  return {
    ...affiliateSales,
    prepare: async (trx, ctx, entry) => {
      const prepared = await prepare(trx, ctx, entry);
      const program = prepared.settings.commissions;
      const commissions: CommissionSettings = {
        ...program,
        commission: { type: rule.type, value: rule.value, duration: 'lifetime', duration_value: null },
        product_commissions: [],
      };
      return { ...prepared, settings: { ...prepared.settings, commissions } };
    },
  };
}

export { storedAffiliateSales } from './transactions.affiliate.stored.ts';
