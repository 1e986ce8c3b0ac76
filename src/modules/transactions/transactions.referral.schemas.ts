import { type Static, Type } from 'typebox';
import { Email, NullableString } from '../../http/schemas.ts';
import { CustomerCreatedAt } from '../customers/customers.affiliate.schemas.ts';
import { ReferralCustomerRef } from '../customers/customers.referral.schemas.ts';
import {
  createTransactionBody,
  rewardSchema,
  transactionOutcomeFields,
} from './transactions.shared.schemas.ts';

/** Wire shapes of transactions in refer-a-friend programs (spec "Transaction", refer-a-friend variant). */

/** The buyer: `id`, `key` or `email` names it; the rest is used when it is created with the sale. */
export const ReferralTransactionCustomer = Type.Partial(
  Type.Object({
    id: Type.String({ minLength: 1, maxLength: 255 }),
    key: Type.String({ minLength: 1, maxLength: 255 }),
    email: Email(),
    name: Type.String({ maxLength: 255 }),
    surname: Type.String({ maxLength: 255 }),
    created_at: CustomerCreatedAt,
    referring_customer: ReferralCustomerRef,
  }),
);

export const CreateReferralTransactionBody = createTransactionBody(
  ReferralTransactionCustomer,
  'CreateReferralTransactionBody',
);

/** One reward: `customer` earns it (the referrer or the buyer), `referred_customer` bought. */
export const ReferralReward = rewardSchema(
  'ReferralReward',
  '`ok`, `paid` when the transaction said `rewarded`, or `rejected` (a self-referral)',
  { referred_customer: NullableString },
);

const transactionFields = {
  key: Type.String(),
  action: Type.String(),
  amount: Type.Number(),
  ...transactionOutcomeFields(ReferralReward),
};

/** In lists, fetches and customer transactions: `customer` is the referrer, `referred_customer` the buyer. */
export const ReferralTransaction = Type.Object(
  { ...transactionFields, customer: NullableString, referred_customer: Type.String() },
  { title: 'ReferralTransaction' },
);
export type ReferralTransaction = Static<typeof ReferralTransaction>;

/** The create response: the referrer in `partner`, the buyer in `customer` (spec). */
export const CreatedReferralTransaction = Type.Object(
  { ...transactionFields, partner: NullableString, customer: Type.String() },
  { title: 'CreatedReferralTransaction' },
);
export type CreatedReferralTransaction = Static<typeof CreatedReferralTransaction>;
