import { type Static, Type } from 'typebox';
import { ListQuery } from '../../http/list-query.ts';
import { NullableTimestamp, Paginated, Success, Timestamp } from '../../http/schemas.ts';
import { PartnerRefInput } from '../partners/partners.schemas.ts';

/** Wire shapes of `/v1/payouts…` (a Vouch extension of `/v1`, affiliate programs). */

const PayoutMethod = Type.Union(
  [
    Type.Literal('paypal'),
    Type.Literal('wise'),
    Type.Literal('bank_transfer'),
    Type.Literal('manual'),
    Type.Null(),
  ],
  { description: 'The partner’s payout method when the payout was made; null: not set' },
);

export const PayoutItem = Type.Object(
  {
    partner: Type.String({ description: 'Id of the partner paid' }),
    amount: Type.Number({ description: 'Net: commissions less clawbacks' }),
    commission_count: Type.Integer(),
    payout_method: PayoutMethod,
  },
  { title: 'PayoutItem' },
);

const payoutFields = {
  id: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('paid'), Type.Literal('cancelled')]),
  currency: Type.String(),
  total: Type.Number(),
  partner_count: Type.Integer(),
  created_at: Timestamp,
  paid_at: NullableTimestamp,
  cancelled_at: NullableTimestamp,
};

/** A list entry: the payout without its items. */
export const PayoutEntry = Type.Object(payoutFields, { title: 'PayoutEntry' });
export const Payout = Type.Object({ ...payoutFields, items: Type.Array(PayoutItem) }, { title: 'Payout' });

export const CreatePayoutBody = Type.Object({
  currency: Type.Optional(Type.String({ format: 'iso4217', description: 'Default: the program currency' })),
  partner: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 255 }), PartnerRefInput], {
      description: 'Only this partner (its id, a referral key, or {id, key, email})',
    }),
  ),
});
export type CreatePayoutBody = Static<typeof CreatePayoutBody>;

export const ListPayoutsQuery = ListQuery('standard', {
  status: Type.Optional(
    Type.Union([Type.Literal('pending'), Type.Literal('paid'), Type.Literal('cancelled')]),
  ),
});
export type ListPayoutsQuery = Static<typeof ListPayoutsQuery>;

export const PayoutIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const ExportPayoutQuery = Type.Object({
  format: Type.Union([Type.Literal('paypal'), Type.Literal('wise'), Type.Literal('csv')], {
    default: 'csv',
    description: '`paypal` (PayPal Payouts), `wise` (Wise batch transfer) or `csv` (every column Vouch has)',
  }),
});

export const PayoutResponse = Success(Payout);
export const PayoutListResponse = Paginated(PayoutEntry);
