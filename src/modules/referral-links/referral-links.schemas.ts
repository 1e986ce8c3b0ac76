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
    url: Type.String({
      description:
        'The website with the referral parameter (`?aff=key`): counts clicks only where the tracking script `vouch.js` runs',
    }),
    tracking_url: Type.String({
      description:
        "Vouch's own `/r/{program}/{key}` link (a Vouch extension): counts the click and sets the cookie, then redirects to the link's target; works without the script",
    }),
    default: Type.Boolean(),
    is_additional: Type.Boolean(),
    direct_tracking: Type.Boolean(),
    direct_tracking_redirect: Type.Boolean(),
    direct_tracking_redirect_url: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'ReferralLink' },
);
