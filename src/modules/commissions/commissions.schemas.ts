import { type Static, Type } from 'typebox';
import { ListQuery } from '../../http/list-query.ts';
import {
  Amount,
  NullableString,
  NullableTimestamp,
  Paginated,
  Success,
  Timestamp,
} from '../../http/schemas.ts';
import { PartnerRefInput } from '../partners/partners.schemas.ts';

/** Wire shapes of `/v1/commissions…` (a Vouch extension of `/v1`, affiliate programs). */

const CommissionStatus = Type.Union(
  [
    Type.Literal('pending'),
    Type.Literal('approved'),
    Type.Literal('paid'),
    Type.Literal('denied'),
    Type.Literal('voided'),
  ],
  { description: '`pending` (in its hold) → `approved` → `paid`; `denied`; `voided`' },
);

export const Commission = Type.Object(
  {
    id: Type.Integer(),
    partner: Type.String({ description: 'Id of the partner who earns it' }),
    transaction: Type.Union([Type.String(), Type.Null()], {
      description: 'Key of the sale; null for a manual commission',
    }),
    customer: Type.Union([Type.String(), Type.Null()], { description: 'Key of the buyer' }),
    tier: Type.Integer({ minimum: 1, maximum: 2, description: '2: the referring partner’s share' }),
    kind: Type.String({
      description: '`sale`, `manual` or `clawback` (a negative line taking back a paid one)',
    }),
    amount: Type.Number(),
    currency: Type.String(),
    status: CommissionStatus,
    due_at: Timestamp,
    approved_at: NullableTimestamp,
    paid_at: NullableTimestamp,
    payout: Type.Union([Type.String(), Type.Null()], { description: 'Id of the payout holding it' }),
    reason: NullableString,
    fraud_flag: Type.Union([Type.String(), Type.Null()], {
      description:
        'Id of the fraud flag holding it (`pending` until the flag is cleared or confirmed) or that denied it; a Vouch extension',
    }),
    description: NullableString,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Commission' },
);

/** A partner named by its id, one of its referral keys or its e-mail (`partner[email]=…`), or a bare id or key. */
const PartnerFilter = Type.Union([Type.String({ minLength: 1, maxLength: 255 }), PartnerRefInput]);

const DateOrTimestamp = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?Z)?$',
  description: 'YYYY-MM-DD (the whole day) or a timestamp',
});

export const ListCommissionsQuery = ListQuery('standard', {
  partner: Type.Optional(PartnerFilter),
  status: Type.Optional(CommissionStatus),
  transaction: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Key of the sale' })),
  currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$' })),
  created_from: Type.Optional(DateOrTimestamp),
  created_to: Type.Optional(DateOrTimestamp),
});
export type ListCommissionsQuery = Static<typeof ListCommissionsQuery>;

export const CommissionIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 32 }) });

export const MAX_BULK_IDS = 500;

export const ReviewCommissionsBody = Type.Object({
  ids: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: MAX_BULK_IDS }),
  reason: Type.Optional(Type.String({ maxLength: 1000 })),
});
export type ReviewCommissionsBody = Static<typeof ReviewCommissionsBody>;

export const CreateCommissionBody = Type.Object({
  partner: PartnerFilter,
  amount: Amount({ sign: 'any', description: 'A bonus (positive) or a correction (negative); never zero' }),
  currency: Type.Optional(Type.String({ format: 'iso4217', description: 'Default: the program currency' })),
  description: Type.String({ minLength: 1, maxLength: 1000 }),
});
export type CreateCommissionBody = Static<typeof CreateCommissionBody>;

export const CommissionResponse = Success(Commission);
export const CommissionArrayResponse = Success(Type.Array(Commission));
export const CommissionListResponse = Paginated(Commission);
