/** A partner on the wire: the list entry, the record with its figures, and the detail with settled commissions. */
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { partnerMetrics } from '../../core/commissions.ts';
import { microsToNumber } from '../../core/money.ts';
import type { PayoutMethod } from '../../core/payouts.ts';
import { tagsOf } from '../../core/tags.ts';
import type { DB } from '../../db/tables.ts';
import { listLinksOf } from '../referral-links/referral-links.service.ts';
import { loadLinkUrlContext, referralLinkUrl } from '../referral-links/referral-links.shared.ts';
import { parseDetails } from './partners.inputs.ts';
import * as repository from './partners.repository.ts';
import type { PartnerRow } from './partners.shared.ts';

export const customFieldsOf = (stored: string): unknown[] => {
  const parsed: unknown = JSON.parse(stored || '[]');
  return Array.isArray(parsed) ? parsed : [];
};

export type PartnerEntryRow = Pick<
  PartnerRow,
  | 'public_id'
  | 'email'
  | 'name'
  | 'surname'
  | 'approved'
  | 'status'
  | 'custom_fields'
  | 'created_at'
  | 'updated_at'
>;

export function toPartnerEntry(row: PartnerEntryRow) {
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

export type PartnerFigures = Awaited<ReturnType<typeof repository.readPartnerCounters>>;

export async function toPartner(
  db: Kysely<DB>,
  programId: number,
  row: PartnerRow,
  figures?: PartnerFigures,
) {
  const links = await listLinksOf(db, programId, { partnerId: row.id });
  // Additional domains matter only to links placed on one.
  const withDomains = links.some((link) => link.domain_id !== null);
  const urls = await loadLinkUrlContext(db, programId, 'affiliate', { withDomains });
  const counters = figures ?? (await repository.readPartnerCounters(db, programId, row.id));
  const defaultLink = links.find((link) => Boolean(link.is_default)) ?? links[0];
  return {
    partner: {
      ...toPartnerEntry(row),
      tos: Boolean(row.tos),
      referrals_count: counters.count(partnerMetrics.signups),
      tags: tagsOf(row.tags),
      referral_link: defaultLink ? referralLinkUrl(defaultLink, urls) : '',
      referral_links: links.map((link) => referralLinkUrl(link, urls)),
    },
    counters,
  };
}

/** The partner as create and update answer (and as events carry it). */
export async function serializePartner(db: Kysely<DB>, programId: number, row: PartnerRow) {
  return (await toPartner(db, programId, row)).partner;
}

/** Sums of one kind per currency: exact micro-units in, the nearest JSON number out. */
export function amountsOf(counters: PartnerFigures, prefix: string) {
  const out: { currency: string; amount: number }[] = [];
  for (const [metric, value] of counters) {
    if (metric.startsWith(prefix) && value !== 0n)
      out.push({ currency: metric.slice(prefix.length).toUpperCase(), amount: microsToNumber(value) });
  }
  return out.sort((a, b) => a.currency.localeCompare(b.currency));
}

/** Every currency's paid commissions added up exactly, as one number. */
export function paidTotal(counters: PartnerFigures): number {
  let micros = 0n;
  for (const [metric, value] of counters) if (metric.startsWith('commission_paid:')) micros += value;
  return microsToNumber(micros);
}

/**
 * Settles a partner's commissions whose hold has passed; answers whether anything moved. The
 * commissions module owns it (and looks partners up here), so the route hands it in.
 */
export type SettleCommissions = (ctx: ProgramContext, partnerId: number) => Promise<boolean>;

export async function serializePartnerDetail(
  ctx: ProgramContext,
  row: PartnerRow,
  settleDueCommissions: SettleCommissions,
) {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  let figures = await repository.readPartnerCounters(db, programId, row.id);
  // Commissions in review may have reached the end of their hold: settle them first.
  const inReview = [...figures].some(
    ([metric, value]) => metric.startsWith('commission_pending:') && value !== 0n,
  );
  if (inReview && (await settleDueCommissions(ctx, row.id)))
    figures = await repository.readPartnerCounters(db, programId, row.id);
  const { partner, counters } = await toPartner(db, programId, row, figures);
  return {
    ...partner,
    referrals: {
      clicks: counters.count(partnerMetrics.clicks),
      signups: counters.count(partnerMetrics.signups),
      revenue: amountsOf(counters, 'revenue:'),
      sales_count: counters.count(partnerMetrics.salesCount),
      paid_accounts: counters.count(partnerMetrics.paidAccounts),
    },
    commissions: {
      paid: paidTotal(counters),
      pending: amountsOf(counters, 'commission_pending:'),
      not_paid: amountsOf(counters, 'commission_not_paid:'),
    },
    custom_field_values: [],
    // Payout details are shown here only: never in lists, create/update answers or events.
    payout_method: (row.payout_method ?? null) as PayoutMethod | null,
    payout_details: parseDetails(row.payout_details),
  };
}
