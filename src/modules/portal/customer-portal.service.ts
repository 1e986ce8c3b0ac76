import { type Deps, keylessContext } from '../../context.ts';
import { brandOf } from '../../core/branding.ts';
import { maskedName, offerInWords, SESSION_DAYS } from '../../core/portal.ts';
import { portalSettingsOf } from '../../core/program-settings.ts';
import { rewardSettingsOf } from '../../core/rewards.ts';
import { nowTimestamp } from '../../core/time.ts';
import { getCustomerBalance } from '../customers/customers.balance.service.ts';
import { getCustomerStats, listCustomerReferrals } from '../customers/customers.referrer.service.ts';
import { findCustomerByRef, findCustomersByIds } from '../customers/customers.service.ts';
import { type PortalVisit, recordPortalVisit } from '../fraud/fraud.sightings.service.ts';
import { readProgramByPublicId } from '../program/program.service.ts';
import * as repository from './portal.repository.ts';

export { SESSION_DAYS } from '../../core/portal.ts';

import {
  digest,
  mailOneTimeLink,
  minutesFromNow,
  newSecret,
  oneTimeLinkUsable,
  TOKEN_SHAPE,
} from './portal.secrets.ts';
import type { LinkBase } from './portal.service.ts';

/**
 * The refer-a-friend customer portal (issue 14), `/c/{program public id}/…`: customers sign in
 * with a one-time link sent to their e-mail (they have no password) and see their referral link,
 * the friends who joined, and their rewards, through the customers service as `/v1` reads them.
 */

export type CustomerPortalProgram = NonNullable<Awaited<ReturnType<typeof getCustomerPortalProgram>>>;

/** The refer-a-friend program of a URL when its `referral_portal_enabled` is on; else undefined. */
export async function getCustomerPortalProgram(deps: Deps, publicId: string) {
  const program = await readProgramByPublicId(deps.database.db, publicId);
  if (program?.type !== 'referral' || program.programSettings.referral_portal_enabled === false)
    return undefined;
  const ctx = keylessContext(deps, program);
  const portal = portalSettingsOf(program.type, program.portal_settings);
  return {
    ctx,
    publicId: program.public_id,
    name: program.name,
    brand: brandOf(program, program.programSettings),
    website: program.website,
    offer: offerInWords(rewardSettingsOf(program.programSettings)),
    programPage: portal.program_page_enabled !== false,
  };
}

export const customerPortalUrl = (base: LinkBase, programPublicId: string) =>
  `${base.baseUrl}/c/${programPublicId}`;

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** Mails a one-time sign-in link; silent for unknown or archived customers (no probing). */
export async function sendCustomerSignInLink(portal: CustomerPortalProgram, email: string, base: LinkBase) {
  if (email.length > 255 || !EMAIL.test(email)) return;
  const { ctx } = portal;
  const row = await findCustomerByRef(ctx.database.db, ctx.program.id, { email });
  if (!row?.email || row.status === 'archived') return;
  await mailOneTimeLink(ctx, {
    purpose: 'sign_in',
    owner: { kind: 'customer', id: Number(row.id) },
    to: row.email,
    name: row.name,
    portalUrl: customerPortalUrl(base, portal.publicId),
    portalName: `your ${portal.name} referral page`,
    subject: `Your sign-in link for ${portal.name}`,
  });
}

/** Signs in with a one-time link (first use, within 15 minutes): a session token, or undefined. */
/** Whether a customer's sign-in link can still be used (its button is shown only then). */
export const customerSignInLinkUsable = (portal: CustomerPortalProgram, token: string) =>
  oneTimeLinkUsable(portal.ctx, token, 'sign_in');

export async function signInCustomerWithLink(portal: CustomerPortalProgram, token: string) {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const { ctx } = portal;
  const db = ctx.database.db;
  const now = nowTimestamp(ctx.clock);
  const used = await repository.useToken(db, ctx.program.id, digest(token), 'sign_in', now);
  if (used?.owner_kind !== 'customer') return undefined;
  const session = newSecret();
  await repository.insertSession(db, {
    program_id: ctx.program.id,
    token_hash: digest(session),
    owner_kind: 'customer',
    owner_id: Number(used.owner_id),
    // Customers have no password: nothing to stamp.
    credential_stamp: '',
    approved: 1,
    created_at: now,
    expires_at: minutesFromNow(ctx, SESSION_DAYS * 24 * 60),
  });
  return session;
}

/** The signed-in customer, or undefined: a session ends when the customer is archived or deleted. */
export async function currentCustomer(portal: CustomerPortalProgram, token: string | undefined) {
  if (!token || token.length > 100) return undefined;
  const { ctx } = portal;
  const db = ctx.database.db;
  const session = await repository.findSession(db, ctx.program.id, digest(token));
  if (session?.owner_kind !== 'customer') return undefined;
  const [row] = await findCustomersByIds(db, ctx.program.id, [Number(session.owner_id)]);
  if (!row || row.status === 'archived' || session.expires_at <= nowTimestamp(ctx.clock)) {
    await repository.deleteSession(db, ctx.program.id, digest(token));
    return undefined;
  }
  return row;
}

export type SignedInCustomer = NonNullable<Awaited<ReturnType<typeof currentCustomer>>>;

/** Notes where a signed-in referrer used its portal from, for the `same_address` fraud rule. */
export const noteCustomerVisit = (
  portal: CustomerPortalProgram,
  customer: SignedInCustomer,
  visit: PortalVisit,
) => recordPortalVisit(portal.ctx, { kind: 'customer', id: Number(customer.id) }, visit);

export async function signOutCustomer(portal: CustomerPortalProgram, token: string | undefined) {
  if (token) await repository.deleteSession(portal.ctx.database.db, portal.ctx.program.id, digest(token));
}

const FRIENDS_SHOWN = 10;

/** The customer's page: its link, its friends (initials only), its counts and balance. */
export async function getCustomerHome(portal: CustomerPortalProgram, customer: SignedInCustomer) {
  const { ctx } = portal;
  const id = customer.public_id;
  const stats = await getCustomerStats(ctx, id);
  const balance = await getCustomerBalance(ctx, id);
  const friends = await listCustomerReferrals(ctx, id, { limit: FRIENDS_SHOWN, page: 1 });
  return {
    name: customer.name,
    link: stats.customer.referral_link,
    signups: stats.referrals.signups,
    bought: stats.referrals.paid_accounts,
    friends: friends.map((friend) => ({
      name: maskedName(friend.name, friend.email, friend.surname),
      since: friend.created_at.slice(0, 10),
    })),
    balance: balance.balance.currency.map((entry) => ({
      currency: entry.amount_units,
      amount: entry.amount,
    })),
    otherRewards: balance.balance.non_currency.map((reward) => ({
      units: reward.reward_type,
      value: reward.reward_value,
      day: reward.created_at.slice(0, 10),
    })),
  };
}
