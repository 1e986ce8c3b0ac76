import type { ProgramContext } from '../../context.ts';
import { affiliateCustomers } from './customers.affiliate.ts';
import { referralCustomers } from './customers.referral.ts';
import type { CustomerRef } from './customers.repository.ts';
import type { CustomerBehaviour, CustomerProgramType, CustomerQuery, TakeSales } from './customers.shared.ts';

/**
 * `/v1/customers…` for every program type that has customers: each function hands over to the
 * caller's type. Adding a type means one entry here and in customers.schemas.ts.
 */
const customerBehaviour = {
  affiliate: affiliateCustomers,
  referral: referralCustomers,
} satisfies Record<CustomerProgramType, CustomerBehaviour>;

function behaviourOf(ctx: ProgramContext): CustomerBehaviour {
  return customerBehaviour[ctx.program.type as CustomerProgramType];
}

export const createCustomer = (ctx: ProgramContext, body: Record<string, unknown>) =>
  behaviourOf(ctx).create(ctx, body);

/** The older nested form `{customer: {...}, partner: {...}, options}`, flattened. */
export const createCustomerNested = (ctx: ProgramContext, body: Record<string, unknown>) => {
  const { customer, ...rest } = body;
  return behaviourOf(ctx).create(ctx, { ...(customer as Record<string, unknown>), ...rest });
};

export const getCustomer = (ctx: ProgramContext, id: string) => behaviourOf(ctx).get(ctx, id);

export const listCustomers = (ctx: ProgramContext, query: CustomerQuery) => behaviourOf(ctx).list(ctx, query);

export const searchCustomers = (ctx: ProgramContext, query: CustomerQuery) =>
  behaviourOf(ctx).search(ctx, query);

export const updateCustomer = (ctx: ProgramContext, id: string | undefined, body: Record<string, unknown>) =>
  behaviourOf(ctx).update(ctx, id, body);

/** Deletes a customer; `takeSales` (the transactions module's) takes its own sales back first. */
export const deleteCustomer = (
  ctx: ProgramContext,
  ref: CustomerRef & { path?: string },
  takeSales: TakeSales,
) => behaviourOf(ctx).remove(ctx, ref, takeSales);

/** The customer `GET /v1/customers/{id}/transactions` names, and the page of its sales to list. */
export const customerSalesPage = (ctx: ProgramContext, id: string, query: Record<string, unknown>) =>
  behaviourOf(ctx).transactionsPage(ctx, id, query);

// What other modules (sales above all) need of customers. Each takes the caller's database or
// transaction, so a sale can find, lock or create its buyer inside its own write transaction.

/** Creates an affiliate program's customer (and its partner link) inside the caller's transaction. */
export { insertAffiliateCustomer } from './customers.affiliate.records.ts';
/** Refer-a-friend: a customer with its referrer, and the counters of a buyer and its referrer. */
export { countersOfCustomers, findCustomerWithReferrer } from './customers.referral.repository.ts';
/** Refer-a-friend: who referred a new customer, creating one, and its wire form. */
export { insertReferralCustomer, resolveReferrer, toReferralCustomer } from './customers.referral.ts';
/** Customers by internal id, for lists that show each row's buyer; and the buyer lock of a sale. */
export { type CustomerRef, findCustomersByIds, lockCustomer } from './customers.repository.ts';
/** A customer named by `id`, `key` or `email`, or undefined. */
export { type CustomerRow, customerNotFound, findCustomerByRef, type TakeSales } from './customers.shared.ts';
