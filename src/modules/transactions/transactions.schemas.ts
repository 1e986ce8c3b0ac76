import { type Static, type TSchema, Type } from 'typebox';
import { ListQuery } from '../../http/list-query.ts';
import { Amount, Paginated, Success } from '../../http/schemas.ts';
import {
  AffiliateTransaction,
  affiliateTransactionFilters,
  CreateAffiliateTransactionBody,
} from './transactions.affiliate.schemas.ts';
import {
  CreatedReferralTransaction,
  CreateReferralTransactionBody,
  ReferralTransaction,
} from './transactions.referral.schemas.ts';
import type { TransactionProgramType } from './transactions.shared.ts';

/**
 * The shapes of `/v1/transactions…` per program type (validated and serialized with the variant
 * of the caller's program). A type adds one entry per table.
 */
type ByTransactionType = Record<TransactionProgramType, TSchema>;

export const CreateTransactionBodyByProgramType = {
  affiliate: CreateAffiliateTransactionBody,
  referral: CreateReferralTransactionBody,
} satisfies ByTransactionType;

export type AffiliateTransactionBody = Static<typeof CreateAffiliateTransactionBody>;
export type ReferralTransactionBody = Static<typeof CreateReferralTransactionBody>;

/** `data` is one transaction, or an array when the body had `transactions`. */
export const CreateTransactionResponseByProgramType = {
  affiliate: Success(Type.Union([AffiliateTransaction, Type.Array(AffiliateTransaction)])),
  referral: Success(Type.Union([CreatedReferralTransaction, Type.Array(CreatedReferralTransaction)])),
} satisfies ByTransactionType;

export const TransactionResponseByProgramType = {
  affiliate: Success(AffiliateTransaction),
  referral: Success(ReferralTransaction),
} satisfies ByTransactionType;

export const TransactionListResponseByProgramType = {
  affiliate: Paginated(AffiliateTransaction),
  referral: Paginated(ReferralTransaction),
} satisfies ByTransactionType;

/** List filters of every type: `key`, `customer[key]` plus each type's own. */
export const transactionListFilters = {
  key: Type.String(),
  customer: Type.Partial(Type.Object({ id: Type.String(), key: Type.String(), email: Type.String() })),
  customer_key: Type.String(),
  ...affiliateTransactionFilters,
};

export const TransactionKeyParams = Type.Object({ key: Type.String({ minLength: 1, maxLength: 255 }) });

export const ListTransactionsQuery = ListQuery(
  'standard',
  Type.Partial(Type.Object(transactionListFilters)).properties,
);

/** `DELETE /v1/transactions` names the transaction in its body (merged into the query). */
export const DeleteTransactionsQuery = Type.Object({ key: Type.String({ minLength: 1 }) });

/** `POST /v1/transactions/{key}/refund`: the part refunded; the whole rest when omitted. */
export const RefundTransactionBody = Type.Object({
  amount: Type.Optional(Amount({ description: 'The part refunded; omitted: everything not refunded yet' })),
});
export type RefundTransactionBody = Static<typeof RefundTransactionBody>;
