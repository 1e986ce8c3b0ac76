import { Type } from 'typebox';
import { BooleanLike, Email, NullableTimestamp, Numeric, Timestamp } from '../../http/schemas.ts';
import { PartnerRef, PartnerRefInput } from '../customers/customers.affiliate.schemas.ts';

/** Wire shapes of transactions in affiliate programs (spec "Transaction", affiliate variant). */

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** The buyer: `key` or `email` names it; the rest is used when it is created with the sale. */
export const AffiliateTransactionCustomer = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 255 }),
  email: Email(),
  name: Type.String({ maxLength: 255 }),
  surname: Type.String({ maxLength: 255 }),
  created_at: Type.String({ format: 'date-time' }),
  partner: PartnerRefInput,
});

/** What one sale carries; the multiple form repeats it in `transactions`. */
export const affiliateTransactionFields = {
  key: Type.String({ minLength: 1, maxLength: 255 }),
  amount: Numeric(),
  amount_units: Type.String({ format: 'iso4217' }),
  action: Type.String({ minLength: 1, maxLength: 255 }),
  rewarded: BooleanLike,
  rewardable: BooleanLike,
  product_id: Type.String({ maxLength: 255 }),
  product_type: Type.String({ maxLength: 255 }),
};

export const AffiliateTransactionItem = Type.Object(affiliateTransactionFields, {
  required: ['amount', 'action'],
});

export const CreateAffiliateTransactionBody = Type.Object(
  {
    ...affiliateTransactionFields,
    customer: Type.Partial(AffiliateTransactionCustomer),
    options: Type.Partial(Type.Object({ create_customer: BooleanLike })),
    transactions: Type.Array(AffiliateTransactionItem, { minItems: 1, maxItems: 100 }),
  },
  { required: ['customer'], title: 'CreateAffiliateTransactionBody' },
);

export const AffiliateReward = Type.Object(
  {
    key: Type.String(),
    action: Type.String(),
    status: Type.String({ description: '`review_period`, `ok` or `paid`' }),
    customer: NullableString,
    partner: NullableString,
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
  },
  { title: 'AffiliateReward' },
);

export const AffiliateTransaction = Type.Object(
  {
    key: Type.String(),
    action: Type.String(),
    amount: Type.Number(),
    partner: NullableString,
    customer: Type.String(),
    credit: Type.Boolean(),
    is_currency: Type.Boolean(),
    amount_units: NullableString,
    created_at: Timestamp,
    deleted_at: NullableTimestamp,
    rewards: Type.Array(AffiliateReward),
  },
  { title: 'AffiliateTransaction' },
);

/** List filters of affiliate programs: `partner[key]`, `customer[key]`, `partner_key`, `partner_email`. */
export const affiliateTransactionFilters = {
  partner_key: Type.String(),
  partner_email: Type.String(),
  partner: Type.Partial(PartnerRef),
};
