import { type Static, Type } from 'typebox';
import { Email, NullableString, Timestamp } from '../../http/schemas.ts';
import { FraudOutcome, RequestContext } from '../fraud/fraud.schemas.ts';

/** Wire shapes of customers in refer-a-friend programs (spec "Customer (refer-a-friend program)"). */

const Identifier = Type.String({ minLength: 1, maxLength: 255, pattern: '^[^/?#\\s]+$' });

/** A customer named by one of its identifiers (`id` wins over `key`, `key` over `email`). */
export const ReferralCustomerRef = Type.Partial(
  Type.Object({
    id: Type.String({ maxLength: 255 }),
    key: Type.String({ maxLength: 255 }),
    email: Type.String({ maxLength: 255 }),
  }),
);

const Metadata = Type.Partial(
  Type.Object({
    date_of_birth: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
      description: 'YYYY-MM-DD, a real date',
    }),
  }),
);

const customerFields = {
  email: Email(),
  name: Type.String({ maxLength: 255 }),
  surname: Type.String({ maxLength: 255 }),
  metadata: Metadata,
};

/**
 * Affiliate programs name a customer's partner; a refer-a-friend body that does is refused with
 * 422 on `partner` (declared so the service can tell, not stripped as unknown).
 */
const ProhibitedPartner = Type.Unknown({ description: 'Refused: refer-a-friend customers have no partner' });

export const CreateReferralCustomerBody = Type.Object(
  {
    email: customerFields.email,
    ...Type.Partial(
      Type.Object({
        id: Identifier,
        key: Identifier,
        name: customerFields.name,
        surname: customerFields.surname,
        metadata: customerFields.metadata,
        referring_customer: Type.Partial(
          Type.Object({ id: Type.String({ maxLength: 255 }), key: Type.String({ maxLength: 255 }) }),
        ),
        partner: ProhibitedPartner,
        context: RequestContext,
      }),
    ).properties,
  },
  { title: 'CreateReferralCustomerBody' },
);
export type CreateReferralCustomerBody = Static<typeof CreateReferralCustomerBody>;

/** The older nested form `{customer: {...}}` some clients still send to `POST /v1/customer`. */
export const CreateReferralCustomerNestedBody = Type.Object(
  { customer: CreateReferralCustomerBody, partner: Type.Optional(ProhibitedPartner) },
  { title: 'CreateReferralCustomerNestedBody' },
);
export type CreateReferralCustomerNestedBody = Static<typeof CreateReferralCustomerNestedBody>;

const changes = Type.Partial(Type.Object({ ...customerFields, key: Identifier, id: Identifier }));

/**
 * Wrapped (`{update: {...}}`) or flat. With no path id, top-level `id` or `key` names the customer
 * and `update.id` renames it (the older form).
 */
export const UpdateReferralCustomerBody = Type.Object(
  { ...changes.properties, update: Type.Optional(changes) },
  { title: 'UpdateReferralCustomerBody' },
);
export type UpdateReferralCustomerBody = Static<typeof UpdateReferralCustomerBody>;

export const CustomFields = Type.Union([
  Type.Array(Type.Unknown()),
  Type.Record(Type.String(), Type.Unknown()),
]);

const entryFields = {
  email: NullableString,
  created_at: Timestamp,
  updated_at: Timestamp,
  id: Type.String(),
  name: NullableString,
  surname: NullableString,
  approved: Type.Boolean(),
  status: Type.String({ description: '`active` or `archived`' }),
  custom_fields: CustomFields,
};

/** List, search and referrals entries carry only these (spec). */
export const ReferralCustomerEntry = Type.Object(entryFields, { title: 'ReferralCustomerEntry' });
export type ReferralCustomerEntry = Static<typeof ReferralCustomerEntry>;

const recordFields = {
  ...entryFields,
  key: Type.String(),
  tos: Type.Boolean(),
  referrals_count: Type.Integer(),
  metadata: Type.Object({ date_of_birth: NullableString }),
  referral_link: Type.String(),
  referral_links: Type.Array(Type.String()),
};

/** The referrer as shown inside a customer: its record without a referrer of its own. */
export const ReferringCustomer = Type.Object(recordFields, { title: 'ReferringCustomer' });

export const ReferralCustomer = Type.Object(
  {
    ...recordFields,
    referring_customer: Type.Union([ReferringCustomer, Type.Null()]),
    fraud: Type.Optional(FraudOutcome),
  },
  { title: 'ReferralCustomer' },
);
export type ReferralCustomer = Static<typeof ReferralCustomer>;

/** `refer_status` of `GET /v1/customers` (refer-a-friend programs). */
export const referralCustomerFilters = {
  refer_status: Type.Union([Type.Literal('referred'), Type.Literal('non_referred')]),
};
