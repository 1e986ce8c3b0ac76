import type { ProgramContext } from '../../context.ts';
import { assertNever } from '../../core/program-types.ts';
import type {
  AffiliateCustomer,
  AffiliateCustomerEntry,
  CreateAffiliateCustomerBody,
  CreateAffiliateCustomerNestedBody,
  UpdateAffiliateCustomerBody,
} from './customers.affiliate.schemas.ts';
import { affiliateCustomers } from './customers.affiliate.ts';
import type { CustomerReads } from './customers.behaviour.ts';
import type {
  CreateReferralCustomerBody,
  CreateReferralCustomerNestedBody,
  ReferralCustomer,
  ReferralCustomerEntry,
  UpdateReferralCustomerBody,
} from './customers.referral.schemas.ts';
import { referralCustomers } from './customers.referral.ts';
import type { CustomerRef } from './customers.repository.ts';
import * as repository from './customers.repository.ts';
import type {
  CustomerTransactionsQuery,
  ListCustomersQuery,
  SearchCustomersQuery,
} from './customers.schemas.ts';
import type { CustomerProgramType, RenameSales, TakeSales } from './customers.shared.ts';

/**
 * `/v1/customers…` for every program type that has customers: each function hands over to the
 * caller's type. Adding a type means one entry here, in each switch below (the compiler asks for
 * it) and in customers.schemas.ts.
 */
const customerBehaviour = {
  affiliate: affiliateCustomers,
  referral: referralCustomers,
};

/** The reads of whichever type the program has: each answers its own type's shapes. */
type AnyCustomerReads =
  | CustomerReads<AffiliateCustomer, AffiliateCustomerEntry>
  | CustomerReads<ReferralCustomer, ReferralCustomerEntry>;

function readsOf(ctx: ProgramContext): AnyCustomerReads {
  return customerBehaviour[ctx.program.type as CustomerProgramType];
}

/** A create body, typed by the program type whose variant validated it. */
export type CreateCustomerInput =
  | { type: 'affiliate'; body: CreateAffiliateCustomerBody }
  | { type: 'referral'; body: CreateReferralCustomerBody };

export function createCustomer(ctx: ProgramContext, input: CreateCustomerInput) {
  switch (input.type) {
    case 'affiliate':
      return affiliateCustomers.create(ctx, input.body);
    case 'referral':
      return referralCustomers.create(ctx, input.body);
    default:
      return assertNever(input);
  }
}

export type CreateCustomerNestedInput =
  | { type: 'affiliate'; body: CreateAffiliateCustomerNestedBody }
  | { type: 'referral'; body: CreateReferralCustomerNestedBody };

/** The older nested form `{customer: {...}, partner: {...}, options}`, flattened. */
export function createCustomerNested(ctx: ProgramContext, input: CreateCustomerNestedInput) {
  switch (input.type) {
    case 'affiliate': {
      const { customer, ...rest } = input.body;
      return affiliateCustomers.create(ctx, { ...customer, ...rest });
    }
    case 'referral': {
      const { customer, ...rest } = input.body;
      return referralCustomers.create(ctx, { ...customer, ...rest });
    }
    default:
      return assertNever(input);
  }
}

export const getCustomer = (ctx: ProgramContext, id: string) => readsOf(ctx).get(ctx, id);

export const listCustomers = (ctx: ProgramContext, query: ListCustomersQuery) =>
  readsOf(ctx).list(ctx, query);

export const searchCustomers = (ctx: ProgramContext, query: SearchCustomersQuery) =>
  readsOf(ctx).search(ctx, query);

/** An update body (wrapped or flat), typed by the program type whose variant validated it. */
export type UpdateCustomerInput =
  | { type: 'affiliate'; body: UpdateAffiliateCustomerBody }
  | { type: 'referral'; body: UpdateReferralCustomerBody };

/** Updates a customer; `renameSales` (the transactions module's) writes a new key onto its sales. */
export function updateCustomer(
  ctx: ProgramContext,
  id: string | undefined,
  input: UpdateCustomerInput,
  renameSales: RenameSales,
) {
  switch (input.type) {
    case 'affiliate':
      return affiliateCustomers.update(ctx, id, input.body, renameSales);
    case 'referral':
      return referralCustomers.update(ctx, id, input.body, renameSales);
    default:
      return assertNever(input);
  }
}

/** Deletes a customer; `takeSales` (the transactions module's) takes its own sales back first. */
export const deleteCustomer = (
  ctx: ProgramContext,
  ref: CustomerRef & { path?: string },
  takeSales: TakeSales,
) => readsOf(ctx).remove(ctx, ref, takeSales);

/** The query of `GET /v1/customers/{id}/transactions` (the transactions module lists the sales). */
export type { CustomerTransactionsQuery } from './customers.schemas.ts';

/** The customer `GET /v1/customers/{id}/transactions` names, and the page of its sales to list. */
export const customerSalesPage = (ctx: ProgramContext, id: string, query: CustomerTransactionsQuery) =>
  readsOf(ctx).transactionsPage(ctx, id, query);

// What other modules (sales above all) need of customers. Each takes the caller's database or
// transaction, so a sale can find, lock or create its buyer inside its own write transaction.

/** Creates an affiliate program's customer (and its partner link) inside the caller's transaction. */
export { insertAffiliateCustomer } from './customers.affiliate.records.ts';
/** Refer-a-friend: a customer with its referrer, and the counters of a buyer and its referrer. */
export {
  countersOfCustomers,
  findCustomerWithReferrer,
  findCustomerWithReferrerForUpdate,
} from './customers.referral.repository.ts';
/** Refer-a-friend: who referred a new customer, creating one, and its wire form. */
export { insertReferralCustomer, resolveReferrer, toReferralCustomer } from './customers.referral.ts';
/** Customers by internal id, for lists that show each row's buyer; and the buyer lock of a sale. */
export {
  type CustomerRef,
  findCustomerByRefForUpdate,
  findCustomersByIds,
  lockCustomer,
} from './customers.repository.ts';
/** A customer named by `id`, `key` or `email`, or undefined. */
export {
  type CustomerRow,
  customerNotFound,
  findCustomerByRef,
  type RenameSales,
  type TakeSales,
} from './customers.shared.ts';

/**
 * A partner's newest customers for the partner portal: name, e-mail and creation time only (the
 * portal masks the names), one indexed read of the few columns instead of whole list entries.
 */
export async function listLatestCustomersOfPartner(ctx: ProgramContext, partnerId: number, limit: number) {
  return repository.listLatestCustomersOfPartner(ctx.database.db, ctx.program.id, partnerId, limit);
}

/** A customer's fraud hold passes from one flag to the next open one, or ends (null). */
export const passCustomerHold = repository.passCustomerHold;
