import { type Static, Type } from 'typebox';
import { Email, NullableString, NullableTimestamp, Timestamp } from '../../http/schemas.ts';
import { FraudOutcome, RequestContext } from '../fraud/fraud.schemas.ts';
import { PartnerRef, PartnerRefInput, Tags, TagsInput } from '../partners/partners.schemas.ts';

/** Wire shapes of customers in affiliate programs (spec "Customer (affiliate program)"). */

// Tags and partner references are the partners module's shapes; customers name their partner.
export { PartnerRef, PartnerRefInput, Tags, TagsInput } from '../partners/partners.schemas.ts';

/**
 * When a customer signed up, for customers recorded after the fact: ISO 8601 with a time zone.
 * The schema checks the form; the service refuses a moment after its clock's now.
 */
export const CustomerCreatedAt = Type.String({
  format: 'date-time',
  maxLength: 64,
  description: 'When the customer signed up (ISO 8601, not in the future); defaults to now',
});

const customerFields = {
  name: Type.String({ maxLength: 255 }),
  surname: Type.String({ maxLength: 255 }),
  email: Email(),
  tags: TagsInput,
};

export const CreateAffiliateCustomerBody = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 255 }),
    ...Type.Partial(Type.Object(customerFields)).properties,
    created_at: Type.Optional(CustomerCreatedAt),
    partner: PartnerRefInput,
    options: Type.Optional(Type.Partial(Type.Object({ referral_url: Type.String({ maxLength: 2048 }) }))),
    context: Type.Optional(RequestContext),
  },
  { title: 'CreateAffiliateCustomerBody' },
);
export type CreateAffiliateCustomerBody = Static<typeof CreateAffiliateCustomerBody>;

const customerChanges = Type.Partial(
  Type.Object({ ...customerFields, key: Type.String({ minLength: 1, maxLength: 255 }) }),
);

/** Wrapped (`{update: {...}}`) or flat; `key`/`email` at the top identify it when the path does not. */
export const UpdateAffiliateCustomerBody = Type.Object(
  {
    ...customerChanges.properties,
    update: Type.Optional(customerChanges),
  },
  { title: 'UpdateAffiliateCustomerBody' },
);
export type UpdateAffiliateCustomerBody = Static<typeof UpdateAffiliateCustomerBody>;

/** The older nested create form, `POST /v1/customer`. */
export const CreateAffiliateCustomerNestedBody = Type.Object(
  {
    customer: Type.Object({
      key: Type.String({ minLength: 1, maxLength: 255 }),
      ...Type.Partial(Type.Object(customerFields)).properties,
      created_at: Type.Optional(CustomerCreatedAt),
    }),
    partner: PartnerRefInput,
    options: Type.Optional(Type.Partial(Type.Object({ referral_url: Type.String({ maxLength: 2048 }) }))),
  },
  { title: 'CreateAffiliateCustomerNestedBody' },
);
export type CreateAffiliateCustomerNestedBody = Static<typeof CreateAffiliateCustomerNestedBody>;

const entryFields = {
  key: Type.String(),
  partner: NullableString,
  deleted: Type.Boolean(),
  name: NullableString,
  surname: NullableString,
  email: NullableString,
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: NullableTimestamp,
};

export const AffiliateCustomerEntry = Type.Object(entryFields, { title: 'AffiliateCustomerEntry' });
export const AffiliateCustomer = Type.Object(
  { ...entryFields, tags: Tags, fraud: Type.Optional(FraudOutcome) },
  { title: 'AffiliateCustomer' },
);
export type AffiliateCustomerEntry = Static<typeof AffiliateCustomerEntry>;
export type AffiliateCustomer = Static<typeof AffiliateCustomer>;

/** List filters of affiliate programs (contract §4: partner_key, partner_email, partner[key]). */
export const affiliateCustomerFilters = {
  partner_key: Type.String(),
  partner_email: Type.String(),
  partner: Type.Partial(PartnerRef),
};
