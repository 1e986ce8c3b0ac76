import { type Static, type TSchema, Type } from 'typebox';
import { ListQuery } from '../../http/list-query.ts';
import { Paginated, Success } from '../../http/schemas.ts';
import { AffiliateTransaction } from '../transactions/transactions.affiliate.schemas.ts';
import { ReferralTransaction } from '../transactions/transactions.referral.schemas.ts';
import {
  AffiliateCustomer,
  AffiliateCustomerEntry,
  affiliateCustomerFilters,
  CreateAffiliateCustomerBody,
  CreateAffiliateCustomerNestedBody,
  UpdateAffiliateCustomerBody,
} from './customers.affiliate.schemas.ts';
import {
  CreateReferralCustomerBody,
  CreateReferralCustomerNestedBody,
  ReferralCustomer,
  ReferralCustomerEntry,
  referralCustomerFilters,
  UpdateReferralCustomerBody,
} from './customers.referral.schemas.ts';
import type { CustomerProgramType } from './customers.shared.ts';

/**
 * The shapes of `/v1/customers…` per program type. Each route validates and serializes with the
 * variant of the caller's program (http/program-variants.ts). A type adds one entry per table.
 */
type ByCustomerType = Record<CustomerProgramType, TSchema>;

export const CreateCustomerBodyByProgramType = {
  affiliate: CreateAffiliateCustomerBody,
  referral: CreateReferralCustomerBody,
} satisfies ByCustomerType;

export const CreateCustomerNestedBodyByProgramType = {
  affiliate: CreateAffiliateCustomerNestedBody,
  referral: CreateReferralCustomerNestedBody,
} satisfies ByCustomerType;

export const UpdateCustomerBodyByProgramType = {
  affiliate: UpdateAffiliateCustomerBody,
  referral: UpdateReferralCustomerBody,
} satisfies ByCustomerType;

export const CustomerResponseByProgramType = {
  affiliate: Success(AffiliateCustomer),
  referral: Success(ReferralCustomer),
} satisfies ByCustomerType;

export const CustomerListResponseByProgramType = {
  affiliate: Paginated(AffiliateCustomerEntry),
  referral: Paginated(ReferralCustomerEntry),
} satisfies ByCustomerType;

export const CustomerTransactionsResponseByProgramType = {
  affiliate: Success(Type.Array(AffiliateTransaction)),
  referral: Success(Type.Array(ReferralTransaction)),
} satisfies ByCustomerType;

/** List filters of every type (a query string has one schema; each type reads its own). */
export const customerListFilters = {
  ...affiliateCustomerFilters,
  ...referralCustomerFilters,
};

export const CustomerIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });

/** A customer named by `id`, `key` or `email` (first given wins, in that order). */
const customerIdentifiers = Type.Partial(
  Type.Object({
    id: Type.String(),
    key: Type.String(),
    email: Type.String(),
  }),
).properties;

/** The older "get one customer" form sends `id`, `key` or `email` to the list path too. */
export const ListCustomersQuery = ListQuery('standard', {
  ...Type.Partial(Type.Object(customerListFilters)).properties,
  ...customerIdentifiers,
});
export type ListCustomersQuery = Static<typeof ListCustomersQuery>;

export const SearchCustomersQuery = ListQuery('standard', customerIdentifiers);
export type SearchCustomersQuery = Static<typeof SearchCustomersQuery>;

/** `DELETE /v1/customers` names the customer in its body (merged into the query). */
export const DeleteCustomersQuery = Type.Object(customerIdentifiers, { required: [] });

/** Each type applies its own range (refer-a-friend: 10–100); the widest is validated here. */
export const CustomerTransactionsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 250 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
});
export type CustomerTransactionsQuery = Static<typeof CustomerTransactionsQuery>;
