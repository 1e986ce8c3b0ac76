import { type Static, Type } from 'typebox';
import { ListQuery } from '../../http/list-query.ts';
import { Success, Timestamp } from '../../http/schemas.ts';

/** Wire shapes of newsletter rewards (spec "Reward (newsletter program)"). */

const FulfillmentType = Type.Union(
  [Type.Literal('url_link'), Type.Literal('generic_coupon'), Type.Literal('retailer_gift_card')],
  { description: '`url_link`, `generic_coupon` or `retailer_gift_card`' },
);

const entryFields = {
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  status: Type.String({ description: 'Always `active`' }),
  type: Type.String({ description: 'Always `default`' }),
  fulfillment_type: Type.String(),
  fulfillment_type_name: Type.String({ description: '`URL`, `Coupon code` or `Gift card`' }),
  fulfillment_value: Type.String(),
  subscriber_count: Type.Integer({ description: 'Counting referrals needed to unlock it' }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

/** A list entry: the reward without `times_triggered`. */
export const RewardEntry = Type.Object(entryFields, { title: 'RewardEntry' });

export const Reward = Type.Object(
  { ...entryFields, times_triggered: Type.Integer({ description: 'Subscribers who unlocked it' }) },
  { title: 'Reward' },
);

/** A reward a subscriber unlocked, inside the subscriber's `reward` array. */
export const UnlockedReward = Type.Object(
  { ...entryFields, unlocked_at: Timestamp },
  { title: 'UnlockedReward' },
);

/** A positive integer, sent as a number or a numeric string; the service reads it (`subscriberCountOf`). */
const SubscribersCount = Type.Union([Type.Number(), Type.String({ maxLength: 20 })], {
  'x-error': 'integer',
  description: 'Counting referrals needed to unlock the reward: a positive integer, as a number or a string',
});

const rewardFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.String({ maxLength: 5000 }),
  subscribers_count: SubscribersCount,
  fulfillment_type: FulfillmentType,
  fulfillment_value: Type.String({ maxLength: 5000 }),
};

export const CreateRewardBody = Type.Object(
  {
    name: rewardFields.name,
    subscribers_count: rewardFields.subscribers_count,
    description: Type.Optional(rewardFields.description),
    fulfillment_type: Type.Optional(rewardFields.fulfillment_type),
    fulfillment_value: Type.Optional(rewardFields.fulfillment_value),
  },
  { title: 'CreateRewardBody' },
);
export type CreateRewardBody = Static<typeof CreateRewardBody>;

const rewardChanges = Type.Partial(Type.Object(rewardFields));
export type RewardChanges = Static<typeof rewardChanges>;

const RewardId = Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^\\s*\\d{1,15}\\s*$' })], {
  'x-error': 'integer',
});

/** `id` names the reward; the changes are flat or wrapped in `update`. */
export const UpdateRewardBody = Type.Object(
  { ...rewardChanges.properties, id: RewardId, update: Type.Optional(rewardChanges) },
  { title: 'UpdateRewardBody' },
);
export type UpdateRewardBody = Static<typeof UpdateRewardBody>;

export const RewardIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });

/** `DELETE /v1/rewards`: the id in the body (or the query). */
export const DeleteRewardQuery = Type.Object({ id: RewardId });

export const ListRewardsQuery = ListQuery('standard');

export const RewardResponse = Success(Reward);
export const RewardListResponse = Success(Type.Array(RewardEntry));
