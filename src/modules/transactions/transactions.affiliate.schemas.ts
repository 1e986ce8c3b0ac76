import { type Static, Type } from 'typebox';
import { Email, NullableString } from '../../http/schemas.ts';
import { CustomerCreatedAt, PartnerRef, PartnerRefInput } from '../customers/customers.affiliate.schemas.ts';
import { FraudOutcome } from '../fraud/fraud.schemas.ts';
import {
  createTransactionBody,
  rewardSchema,
  transactionOutcomeFields,
} from './transactions.shared.schemas.ts';

/** Wire shapes of transactions in affiliate programs (spec "Transaction", affiliate variant). */

/** The buyer: `key` or `email` names it; the rest is used when it is created with the sale. */
export const AffiliateTransactionCustomer = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 255 }),
  email: Email(),
  name: Type.String({ maxLength: 255 }),
  surname: Type.String({ maxLength: 255 }),
  created_at: CustomerCreatedAt,
  partner: PartnerRefInput,
});

export const CreateAffiliateTransactionBody = createTransactionBody(
  Type.Partial(AffiliateTransactionCustomer),
  'CreateAffiliateTransactionBody',
);

export const AffiliateReward = rewardSchema(
  'AffiliateReward',
  '`review_period`, `ok`, `paid` or `rejected` (a self-referral)',
  {
    partner: NullableString,
  },
);

export const AffiliateTransaction = Type.Object(
  {
    key: Type.String(),
    action: Type.String(),
    amount: Type.Number(),
    partner: NullableString,
    customer: Type.String(),
    ...transactionOutcomeFields(AffiliateReward),
    fraud: Type.Optional(FraudOutcome),
  },
  { title: 'AffiliateTransaction' },
);
export type AffiliateTransaction = Static<typeof AffiliateTransaction>;

/** List filters of affiliate programs: `partner[key]`, `customer[key]`, `partner_key`, `partner_email`. */
export const affiliateTransactionFilters = {
  partner_key: Type.String(),
  partner_email: Type.String(),
  partner: Type.Partial(PartnerRef),
};
