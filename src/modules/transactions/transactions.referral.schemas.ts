import { Type } from 'typebox';
import { BooleanLike, Email, NullableTimestamp, Numeric, Timestamp } from '../../http/schemas.ts';
import { ReferralCustomerRef } from '../customers/customers.referral.schemas.ts';

/** Wire shapes of transactions in refer-a-friend programs (spec "Transaction", refer-a-friend variant). */

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** The buyer: `id`, `key` or `email` names it; the rest is used when it is created with the sale. */
export const ReferralTransactionCustomer = Type.Partial(
  Type.Object({
    id: Type.String({ minLength: 1, maxLength: 255 }),
    key: Type.String({ minLength: 1, maxLength: 255 }),
    email: Email(),
    name: Type.String({ maxLength: 255 }),
    surname: Type.String({ maxLength: 255 }),
    created_at: Type.String({ format: 'date-time' }),
    referring_customer: ReferralCustomerRef,
  }),
);

const referralTransactionFields = {
  key: Type.String({ minLength: 1, maxLength: 255 }),
  amount: Numeric(),
  amount_units: Type.String({ format: 'iso4217' }),
  action: Type.String({ minLength: 1, maxLength: 255 }),
  rewarded: BooleanLike,
  rewardable: BooleanLike,
  product_id: Type.String({ maxLength: 255 }),
  product_type: Type.String({ maxLength: 255 }),
};

export const CreateReferralTransactionBody = Type.Object(
  {
    ...referralTransactionFields,
    customer: ReferralTransactionCustomer,
    options: Type.Partial(Type.Object({ create_customer: BooleanLike })),
    transactions: Type.Array(Type.Object(referralTransactionFields, { required: ['amount', 'action'] }), {
      minItems: 1,
      maxItems: 100,
    }),
  },
  { required: ['customer'], title: 'CreateReferralTransactionBody' },
);

const rewardFields = {
  key: Type.String(),
  action: Type.String(),
  status: Type.String({ description: '`ok`, or `paid` when the transaction said `rewarded`' }),
  customer: NullableString,
  referred_customer: NullableString,
  amount: Type.Number(),
  amount_units: Type.String(),
  is_currency: Type.Boolean(),
  credit: Type.Boolean(),
  created_at: Timestamp,
  deleted_at: NullableTimestamp,
  product_type_data: Type.Union([
    Type.Array(Type.Never(), { maxItems: 0 }),
    Type.Object({ product_id: NullableString, product_type: NullableString }),
  ]),
};

/** One reward: `customer` earns it (the referrer or the buyer), `referred_customer` bought. */
export const ReferralReward = Type.Object(rewardFields, { title: 'ReferralReward' });

const transactionFields = {
  key: Type.String(),
  action: Type.String(),
  amount: Type.Number(),
  credit: Type.Boolean(),
  is_currency: Type.Boolean(),
  amount_units: NullableString,
  created_at: Timestamp,
  deleted_at: NullableTimestamp,
  rewards: Type.Array(ReferralReward),
};

/** In lists, fetches and customer transactions: `customer` is the referrer, `referred_customer` the buyer. */
export const ReferralTransaction = Type.Object(
  { ...transactionFields, customer: NullableString, referred_customer: Type.String() },
  { title: 'ReferralTransaction' },
);

/** The create response: the referrer in `partner`, the buyer in `customer` (spec). */
export const CreatedReferralTransaction = Type.Object(
  { ...transactionFields, partner: NullableString, customer: Type.String() },
  { title: 'CreatedReferralTransaction' },
);
