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

/** How the partner is paid (payouts); shown on the partner fetch only. */
export const PayoutMethodInput = Type.Union(
  [Type.Literal('paypal'), Type.Literal('wise'), Type.Literal('bank_transfer'), Type.Literal('manual')],
  { description: 'How payouts reach the partner', 'x-error': 'invalid' },
);
export const PayoutDetailsInput = Type.Partial(
  Type.Object({
    email: Email(),
    iban: Type.String({ pattern: '^[A-Z]{2}[0-9]{2}[A-Z0-9 ]{10,40}$', description: 'IBAN, upper case' }),
    account_holder: Type.String({ maxLength: 255 }),
    account_number: Type.String({ maxLength: 64 }),
    routing_number: Type.String({ maxLength: 64, description: 'Sort code, routing or BSB number' }),
    swift_bic: Type.String({ pattern: '^[A-Z0-9]{8}([A-Z0-9]{3})?$' }),
    bank_name: Type.String({ maxLength: 255 }),
    note: Type.String({ maxLength: 1000, description: 'Free text (manual payouts)' }),
  }),
  { title: 'PayoutDetails' },
);
const payoutFields = { payout_method: PayoutMethodInput, payout_details: PayoutDetailsInput };

/** A partner's payout method and fields on their own, as `POST/PUT /v1/partners` validate them (the portal's settings form). */
export const PartnerPayoutInput = Type.Object(payoutFields, { additionalProperties: false });

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
    payout_method: Type.Union([PayoutMethodInput, Type.Null()]),
    payout_details: PayoutDetailsInput,
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
        ...payoutFields,
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
    ...payoutFields,
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
  approved: Type.Optional(
    Type.Boolean({
      description:
        '`false` lists the partners awaiting approval (applicants, and partners whose approval was withdrawn); `true` the approved ones.',
    }),
  ),
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
