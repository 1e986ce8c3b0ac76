import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { microsToText } from '../../core/money.ts';
import type { DB } from '../../db/tables.ts';
import { createCustomer, findCustomerByRef } from '../customers/customers.service.ts';
import { getPromotionCode } from '../promotion-codes/promotion-codes.service.ts';
import {
  createTransactions,
  refundTransaction,
  type SaleCompanion,
} from '../transactions/transactions.service.ts';

/**
 * The one door from processor events to the customers, transactions and promotion-codes
 * services: what an event decides goes through their public functions exactly as the `/v1` API's
 * requests do, so a sale from Stripe is a sale (same rules, events, webhooks and figures). Nothing
 * else in this module calls another module.
 */

/** Who bought, as the processor names them. */
export interface EventBuyer {
  /** The processor's customer id: an affiliate customer's `key`, a refer-a-friend customer's `id`. */
  customerId: string | null;
  email: string | undefined;
  name: string | undefined;
}

/** How a sale or customer is credited: a referral key (partner, partner link, referring customer) or a code. */
export type Credit =
  | { by: 'referral'; key: string }
  | { by: 'customer' }
  | { by: 'promotion_code'; code: string };

export interface EventSale {
  key: string;
  action: string;
  amountMicros: bigint;
  currency: string;
  productId: string | undefined;
  productType: string | undefined;
}

type SaleProgramType = 'affiliate' | 'referral';

function saleProgramType(ctx: ProgramContext): SaleProgramType {
  const type = ctx.program.type;
  if (type === 'affiliate' || type === 'referral') return type;
  throw new AppError('not_found', `${type} programs have no sales.`);
}

/** Whether the refusal is about the referral key (unknown or archived): attribution tries the next way. */
export function refusedCredit(error: unknown): boolean {
  if (!(error instanceof AppError) || error.code !== 'validation_failed') return false;
  return error.problems.some(
    ({ field }) =>
      field.startsWith('customer.partner') ||
      field.startsWith('customer.referring_customer') ||
      field.startsWith('partner') ||
      field.startsWith('referring_customer'),
  );
}

/** The Vouch customer that is this processor customer, if any: its key (affiliate) or id (refer-a-friend). */
export async function findLinkedCustomer(
  ctx: ProgramContext,
  customerId: string,
): Promise<string | undefined> {
  const ref = saleProgramType(ctx) === 'affiliate' ? { key: customerId } : { id: customerId };
  const row = await findCustomerByRef(ctx.database.db, ctx.program.id, ref);
  return row ? customerId : undefined;
}

/** Whether `code` is one of the program's promotion codes. */
export async function promotionCodeExists(ctx: ProgramContext, code: string): Promise<boolean> {
  try {
    await getPromotionCode(ctx, code);
    return true;
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') return false;
    throw error;
  }
}

const present = <T>(value: T | undefined) => (value === undefined ? {} : value);

/** The buyer as a transaction names it, created with the sale when missing. */
function affiliateBuyer(buyer: EventBuyer, credit: Credit) {
  return {
    ...(buyer.customerId ? { key: buyer.customerId } : {}),
    ...present(buyer.email && { email: buyer.email }),
    ...present(buyer.name && { name: buyer.name }),
    ...(credit.by === 'referral' ? { partner: { key: credit.key } } : {}),
  };
}

function referralBuyer(buyer: EventBuyer, credit: Credit) {
  return {
    ...(buyer.customerId ? { id: buyer.customerId } : {}),
    ...present(buyer.email && { email: buyer.email }),
    ...present(buyer.name && { name: buyer.name }),
    ...(credit.by === 'referral' ? { referring_customer: { key: credit.key } } : {}),
  };
}

/**
 * Records the sale as `POST /v1/transactions` does, creating the buyer when it is new (except when
 * the sale is credited by the buyer itself: then it must exist, and a missing one is a 422). A
 * sale whose key is stored with the same content answers the stored one (a second run changes
 * nothing). With `trx`, inside the caller's write transaction; a `companion` (the event's log
 * rows) is written with the sale. Answers the buyer's key as the events log shows it.
 */
export async function recordEventSale(
  ctx: ProgramContext,
  sale: EventSale,
  buyer: EventBuyer,
  credit: Credit,
  trx?: Kysely<DB>,
  companion?: SaleCompanion,
): Promise<string | undefined> {
  const fields = {
    key: sale.key,
    amount: microsToText(sale.amountMicros),
    amount_units: sale.currency.toUpperCase(),
    action: sale.action,
    ...(sale.productId ? { product_id: sale.productId } : {}),
    ...(sale.productType ? { product_type: sale.productType } : {}),
    ...(credit.by === 'promotion_code' ? { promotion_code: credit.code } : {}),
    options: { create_customer: credit.by !== 'customer' },
  };
  if (saleProgramType(ctx) === 'affiliate') {
    await createTransactions(
      ctx,
      { type: 'affiliate', body: { ...fields, customer: affiliateBuyer(buyer, credit) } },
      trx,
      companion,
    );
  } else {
    await createTransactions(
      ctx,
      { type: 'referral', body: { ...fields, customer: referralBuyer(buyer, credit) } },
      trx,
      companion,
    );
  }
  return buyerKeyOf(buyer);
}

/** The buyer's key as the events log shows it: the processor's customer id, else the e-mail. */
export function buyerKeyOf(buyer: EventBuyer): string | undefined {
  return buyer.customerId ?? buyer.email;
}

/**
 * Creates the customer a processor announced, credited by a referral key, as `POST
 * /v1/customers` does. Answers `created`, `exists` (the customer is there already) or `no-email`
 * (a refer-a-friend customer needs one).
 */
export async function createEventCustomer(
  ctx: ProgramContext,
  buyer: EventBuyer & { customerId: string },
  referral: string,
): Promise<'created' | 'exists' | 'no-email'> {
  if (await findLinkedCustomer(ctx, buyer.customerId)) return 'exists';
  if (saleProgramType(ctx) === 'affiliate') {
    await createCustomer(ctx, {
      type: 'affiliate',
      body: {
        key: buyer.customerId,
        ...present(buyer.email && { email: buyer.email }),
        ...present(buyer.name && { name: buyer.name }),
        partner: { key: referral },
      },
    });
    return 'created';
  }
  if (!buyer.email) return 'no-email';
  await createCustomer(ctx, {
    type: 'referral',
    body: {
      id: buyer.customerId,
      email: buyer.email,
      ...present(buyer.name && { name: buyer.name }),
      referring_customer: { key: referral },
    },
  });
  return 'created';
}

/** Refunds part of a sale through the refund operation (rewards reduced or clawed back). */
export async function refundEventSale(ctx: ProgramContext, key: string, amountMicros: bigint): Promise<void> {
  await refundTransaction(ctx, key, { amount: microsToText(amountMicros) });
}
