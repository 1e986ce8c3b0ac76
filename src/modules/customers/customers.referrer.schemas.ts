import { type Static, Type } from 'typebox';
import { Email } from '../../http/schemas.ts';
import { ReferralLink } from '../referral-links/referral-links.schemas.ts';
import { ReferralCustomer, ReferralCustomerEntry } from './customers.referral.schemas.ts';

/** A link of the customer with its clicks (kept by click tracking). */
const StatsLink = Type.Object(
  { ...ReferralLink.properties, clicks: Type.Integer({ description: 'Counted clicks on this link' }) },
  { title: 'CustomerStatsLink' },
);

export const CustomerStats = Type.Object(
  {
    customer: ReferralCustomer,
    referrals: Type.Object({
      clicks: Type.Integer(),
      signups: Type.Integer(),
      revenue: Type.Array(Type.Object({ currency: Type.String(), amount: Type.Number() })),
      sales_count: Type.Integer(),
      paid_accounts: Type.Integer(),
    }),
    ref_links: Type.Array(StatsLink),
  },
  { title: 'CustomerStats' },
);

export const CustomerReferrals = Type.Array(ReferralCustomerEntry);

export const CustomerReferralsQuery = Type.Partial(
  Type.Object({
    limit: Type.Integer({ minimum: 1, maximum: 250, default: 100 }),
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  }),
);

export const InviteCustomerBody = Type.Object(
  {
    email: Email(),
    name: Type.Optional(Type.String({ maxLength: 255 })),
    // Free-form data for the message's `{{key}}` placeholders, `subject` and `message`.
    personalization: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { title: 'InviteCustomerBody' },
);
export type InviteCustomerBody = Static<typeof InviteCustomerBody>;
