import { type Static, Type } from 'typebox';
import { Amount, BooleanLike, Timestamp } from '../../http/schemas.ts';
import { ReferralCustomer } from './customers.referral.schemas.ts';

export const CustomerBalance = Type.Object(
  {
    customer: ReferralCustomer,
    balance: Type.Object({
      currency: Type.Array(
        Type.Object({ amount: Type.Number(), amount_units: Type.String(), is_currency: Type.Boolean() }),
        { description: 'Per currency: ok currency rewards minus what was credited' },
      ),
      non_currency: Type.Array(
        Type.Object({
          reward_type: Type.String({ description: 'The unit of the reward (points, discount, …)' }),
          commission_type: Type.String({ description: '`percent` or `fixed`' }),
          reward_value: Type.Number(),
          created_at: Timestamp,
        }),
      ),
    }),
  },
  { title: 'CustomerBalance' },
);

export const CreditBalanceBody = Type.Object(
  {
    amount: Amount({ sign: 'positive' }),
    amount_units: Type.String({ minLength: 1, maxLength: 32 }),
    is_currency: BooleanLike,
  },
  { title: 'CreditBalanceBody' },
);
export type CreditBalanceBody = Static<typeof CreditBalanceBody>;
