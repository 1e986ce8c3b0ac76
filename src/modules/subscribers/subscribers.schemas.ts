import { type Static, Type } from 'typebox';
import { ListQuery } from '../../http/list-query.ts';
import {
  BooleanLike,
  Email,
  NullableString,
  NullableTimestamp,
  Paginated,
  Success,
  Timestamp,
} from '../../http/schemas.ts';
import { FraudOutcome, RequestContext } from '../fraud/fraud.schemas.ts';
import { UnlockedReward } from '../rewards/rewards.schemas.ts';

/** Wire shapes of subscribers of newsletter programs (spec "Subscriber"). */

const NullableBoolean = Type.Union([Type.Boolean(), Type.Null()]);

export const Subscriber = Type.Object(
  {
    id: NullableString,
    name: NullableString,
    email: Type.String(),
    is_referred: Type.Boolean(),
    tos: NullableBoolean,
    marketing_consent: NullableBoolean,
    status: Type.String({ description: '`Active`, `Rejected` or `Suspended`' }),
    approved: Type.Boolean(),
    portal_link: Type.String({ description: "The subscriber's portal on Vouch (secret URL)" }),
    share_link: Type.String({ description: 'The share page that signs up subscribers referred by this one' }),
    referrals_count: Type.Integer({ description: 'Referred subscribers that are active and approved' }),
    reward: Type.Array(UnlockedReward, { description: 'Rewards unlocked, oldest first' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: NullableTimestamp,
    fraud: Type.Optional(FraudOutcome),
  },
  { title: 'Subscriber' },
);

const Status = Type.Union([Type.Literal('active'), Type.Literal('rejected'), Type.Literal('suspended')], {
  description: '`active`, `rejected` or `suspended` (lower case)',
});
const Key = Type.String({ minLength: 1, maxLength: 255 });
const Name = Type.String({ maxLength: 255 });

/** A subscriber named by `email` or `id`. */
export const SubscriberRef = Type.Partial(Type.Object({ email: Type.String({ maxLength: 255 }), id: Key }));

export const CreateSubscriberBody = Type.Object(
  {
    email: Email(),
    ...Type.Partial(
      Type.Object({
        id: Key,
        name: Name,
        tos: BooleanLike,
        marketing_consent: BooleanLike,
        approved: BooleanLike,
        status: Status,
        referral: SubscriberRef,
        context: RequestContext,
      }),
    ).properties,
  },
  { title: 'CreateSubscriberBody' },
);
export type CreateSubscriberBody = Static<typeof CreateSubscriberBody>;

const subscriberChanges = Type.Partial(
  Type.Object({
    email: Email(),
    name: Name,
    id: Key,
    tos: BooleanLike,
    marketing_consent: BooleanLike,
    status: Status,
    approved: BooleanLike,
  }),
);
export type SubscriberChanges = Static<typeof subscriberChanges>;

/** Wrapped (`{update: {...}}`) or flat; `id` or `email` name the subscriber when the path does not. */
export const UpdateSubscriberBody = Type.Object(
  { ...subscriberChanges.properties, update: Type.Optional(subscriberChanges) },
  { title: 'UpdateSubscriberBody' },
);
export type UpdateSubscriberBody = Static<typeof UpdateSubscriberBody>;

export const SubscriberIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });

export const SubscriberIdentifyQuery = Type.Partial(
  Type.Object({ id: Type.String({ maxLength: 255 }), email: Type.String({ maxLength: 255 }) }),
);

export const ListSubscribersQuery = ListQuery('subscribers', {
  refer_status: Type.Optional(
    Type.String({ maxLength: 32, description: '`referred` or `non_referred`; any other value answers 404' }),
  ),
});

export const SearchSubscribersQuery = ListQuery('subscribers', {
  id: Type.Optional(Type.String({ maxLength: 255 })),
  email: Type.Optional(Type.String({ maxLength: 255 })),
});

export const SubscriberResponse = Success(Subscriber);
export const SubscriberListResponse = Paginated(Subscriber);
