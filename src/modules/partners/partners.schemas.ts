import { type Static, Type } from 'typebox';
import { ListQuery } from '../../http/list-query.ts';
import { Email, NullableString, Paginated, Success, Timestamp } from '../../http/schemas.ts';

/** Wire shapes of partners (spec "Partner (affiliate)"). */

export const TagsInput = Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 });
export const Tags = Type.Array(Type.Object({ value: Type.String() }));

/** A partner named by one of its identifiers. */
export const PartnerRef = Type.Object({
  id: Type.String({ maxLength: 255 }),
  key: Type.String({ maxLength: 255 }),
  email: Type.String({ maxLength: 255 }),
});
export const PartnerRefInput = Type.Partial(PartnerRef);

const PartnerStatus = Type.Union([Type.Literal('active'), Type.Literal('pending'), Type.Literal('archived')]);
const Amounts = Type.Array(Type.Object({ currency: Type.String(), amount: Type.Number() }));

const entryFields = {
  email: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  id: Type.String(),
  name: NullableString,
  surname: NullableString,
  approved: Type.Boolean(),
  status: Type.String({ description: '`active`, `pending` or `archived`' }),
  custom_fields: Type.Array(Type.Unknown()),
};

/** List and search entries: only the spec's nine fields. */
export const PartnerEntry = Type.Object(entryFields, { title: 'PartnerEntry' });

const partnerFields = {
  ...entryFields,
  tos: Type.Boolean(),
  referrals_count: Type.Integer(),
  tags: Tags,
  referral_link: Type.String({ description: 'URL of the default link' }),
  referral_links: Type.Array(Type.String()),
};

export const Partner = Type.Object(partnerFields, { title: 'Partner' });

export const PartnerDetail = Type.Object(
  {
    ...partnerFields,
    referrals: Type.Object({
      clicks: Type.Integer(),
      signups: Type.Integer(),
      revenue: Amounts,
      sales_count: Type.Integer(),
      paid_accounts: Type.Integer(),
    }),
    commissions: Type.Object({
      paid: Type.Number({ description: 'Paid commissions, all currencies together' }),
      pending: Amounts,
      not_paid: Amounts,
    }),
    custom_field_values: Type.Array(Type.Unknown()),
  },
  { title: 'PartnerDetail' },
);

const Key = Type.String({ minLength: 1, maxLength: 255 });

export const CreatePartnerBody = Type.Object(
  {
    email: Email(),
    ...Type.Partial(
      Type.Object({
        id: Key,
        key: Key,
        name: Type.String({ maxLength: 255 }),
        surname: Type.String({ maxLength: 255 }),
        password: Type.String({ maxLength: 255 }),
        tags: TagsInput,
        tos: Type.Boolean(),
        approved: Type.Boolean(),
        referring_partner: PartnerRefInput,
      }),
    ).properties,
  },
  { title: 'CreatePartnerBody' },
);
export type CreatePartnerBody = Static<typeof CreatePartnerBody>;

const partnerChanges = Type.Partial(
  Type.Object({
    email: Email(),
    name: Type.String({ maxLength: 255 }),
    surname: Type.String({ maxLength: 255 }),
    password: Type.String({ maxLength: 255 }),
    key: Key,
    tags: TagsInput,
  }),
);

/** Wrapped (`{update: {...}}`) or flat; `id`, `email` or `key` name the partner when the path does not. */
export const UpdatePartnerBody = Type.Object(
  { ...partnerChanges.properties, id: Type.Optional(Key), update: Type.Optional(partnerChanges) },
  { title: 'UpdatePartnerBody' },
);
export type UpdatePartnerBody = Static<typeof UpdatePartnerBody>;

export const PartnerIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });

export const PartnerIdentifyQuery = Type.Partial(
  Type.Object({ id: Type.String(), key: Type.String(), email: Type.String() }),
);

export const ListPartnersQuery = ListQuery('standard', {
  status: Type.Optional(PartnerStatus),
});

export const SearchPartnersQuery = ListQuery('standard', {
  id: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  key: Type.Optional(Type.String()),
  status: Type.Optional(PartnerStatus),
});

export const InvitePartnerBody = Type.Object(
  {
    email: Email(),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    surname: Type.String({ maxLength: 255 }),
  },
  { required: ['email', 'name'], title: 'InvitePartnerBody' },
);

export const PartnerResponse = Success(Partner);
export const PartnerDetailResponse = Success(PartnerDetail);
export const PartnerListResponse = Paginated(PartnerEntry);
