import { fieldError } from '../../core/errors.ts';
import { customerMetrics } from '../../core/sales.ts';
import type { CounterFigures } from '../counters/counters.repository.ts';
import {
  type LinkUrlContext,
  linkUrl,
  type ReferralLinkRow,
  referralLinkUrl,
} from '../referral-links/referral-links.shared.ts';
import type { CustomerRow } from './customers.shared.ts';

/** How a refer-a-friend customer shows on the wire: its list entry and its full record. */

function metadataOf(stored: string): { date_of_birth: string | null } {
  const parsed: unknown = JSON.parse(stored || '{}');
  const dob =
    typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).date_of_birth : null;
  return { date_of_birth: typeof dob === 'string' ? dob : null };
}

function customFieldsOf(stored: string): unknown[] | Record<string, unknown> {
  const parsed: unknown = JSON.parse(stored || '[]');
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : [];
}

/** List, search and referrals entries (spec: only these nine fields). */
export function toReferralCustomerEntry(row: CustomerRow) {
  return {
    email: row.email,
    created_at: row.created_at,
    updated_at: row.updated_at,
    id: row.public_id,
    name: row.name,
    surname: row.surname,
    approved: Boolean(row.approved),
    status: row.status,
    custom_fields: customFieldsOf(row.custom_fields),
  };
}

/** What a record reads of a link. */
export type RecordLink = Pick<
  ReferralLinkRow,
  'customer_id' | 'is_default' | 'key' | 'domain_id' | 'is_additional'
>;

export function recordOf(
  row: CustomerRow,
  linkRows: readonly RecordLink[],
  counters: CounterFigures,
  links: LinkUrlContext,
) {
  const own = linkRows.filter((link) => Number(link.customer_id) === Number(row.id));
  const defaultLink = own.find((link) => Boolean(link.is_default));
  return {
    ...toReferralCustomerEntry(row),
    key: row.key,
    tos: Boolean(row.tos),
    referrals_count: counters.count(customerMetrics.referralsCount),
    metadata: metadataOf(row.metadata),
    referral_link: defaultLink
      ? referralLinkUrl(defaultLink, links)
      : linkUrl(links.website, links.parameter, row.key),
    referral_links: own.map((link) => referralLinkUrl(link, links)),
  };
}

export type ReferrerRef = { id?: string | undefined; key?: string | undefined; email?: string | undefined };

/** A body's referrer reference with empty strings as not given; 422 on `field.id` when it names nothing. */
export function referrerRefOf(ref: ReferrerRef | undefined, field: string): ReferrerRef | undefined {
  if (ref === undefined) return undefined;
  const given = { id: ref.id || undefined, key: ref.key || undefined, email: ref.email || undefined };
  if (!given.id && !given.key && !given.email) throw fieldError(`${field}.id`, 'required');
  return given;
}
