import { Type } from 'typebox';

/**
 * The referral link object, the same for partners and refer-a-friend customers (spec "Referral
 * link", contract §4.15), and how its URL is built. Both the affiliate and the refer-a-friend
 * modules import it.
 */
export const ReferralLink = Type.Object(
  {
    id: Type.String({ description: 'Equals key' }),
    key: Type.String(),
    url: Type.String(),
    default: Type.Boolean(),
    is_additional: Type.Boolean(),
    direct_tracking: Type.Boolean(),
    direct_tracking_redirect: Type.Boolean(),
    direct_tracking_redirect_url: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'ReferralLink' },
);
