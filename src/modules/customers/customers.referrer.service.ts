import type { ProgramContext } from '../../context.ts';
import { microsToNumber } from '../../core/money.ts';
import { exactPageWindow } from '../../core/pages.ts';
import { customerMetrics } from '../../core/sales.ts';
import { nowTimestamp } from '../../core/time.ts';
import { queueEmail } from '../../outbox/outbox.ts';
import { escapeText } from '../../pages/rendered.tsx';
import { readEntityCounters } from '../counters/counters.repository.ts';
import { getProgramNameAndWebsite } from '../program/program.service.ts';
import { toReferralLink } from '../referral-links/referral-links.shared.ts';
import {
  getReferralCustomerOrThrow,
  loadReferralCustomer,
  setReferralCustomerStatus,
  toReferralCustomerEntry,
} from './customers.referral.ts';
import type { InviteCustomerBody } from './customers.referrer.schemas.ts';
import { listCustomers } from './customers.repository.ts';

/** Endpoints only refer-a-friend customers have: archive, stats, referrals, invitations. */

export const archiveCustomer = (ctx: ProgramContext, id: string) =>
  setReferralCustomerStatus(ctx, id, 'archived');

export const revokeArchiveCustomer = (ctx: ProgramContext, id: string) =>
  setReferralCustomerStatus(ctx, id, 'active');

/** Figures from the customer's counters (kept by sales and signups), never from history. */
export async function getCustomerStats(ctx: ProgramContext, id: string) {
  const db = ctx.database.db;
  const row = await getReferralCustomerOrThrow(db, ctx, id);
  const { record, counters, links, linkContext } = await loadReferralCustomer(db, ctx, row);
  const revenue = [...counters]
    .filter(([metric]) => metric.startsWith('revenue:'))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([metric, micros]) => ({
      currency: metric.slice('revenue:'.length).toUpperCase(),
      amount: microsToNumber(micros),
    }));
  return {
    customer: record,
    referrals: {
      clicks: counters.count(customerMetrics.clicks),
      signups: counters.count(customerMetrics.signups),
      revenue,
      sales_count: counters.count(customerMetrics.salesCount),
      paid_accounts: counters.count(customerMetrics.paidAccounts),
    },
    ref_links: await Promise.all(
      links.map(async (link) => ({
        ...toReferralLink(link, linkContext, ctx),
        clicks: (await readEntityCounters(db, ctx.program.id, { kind: 'link', id: Number(link.id) })).count(
          customerMetrics.clicks,
        ),
      })),
    ),
  };
}

/** The customers it referred (archived ones left out), newest first. */
export async function listCustomerReferrals(
  ctx: ProgramContext,
  id: string,
  page: { limit: number; page: number },
) {
  const db = ctx.database.db;
  const row = await getReferralCustomerOrThrow(db, ctx, id);
  const rows = await listCustomers(
    db,
    ctx.program.id,
    { statuses: ['active'], referringCustomerId: row.id },
    exactPageWindow(page),
    'desc',
  );
  return rows.map(toReferralCustomerEntry);
}

/**
 * Queues an invitation e-mail through the outbox. `personalization` is custom data for the
 * message: a string `message` replaces the default text, `subject` the default subject, and every
 * `{{key}}` of either is replaced by that key's value.
 */
export async function inviteCustomer(ctx: ProgramContext, body: InviteCustomerBody): Promise<void> {
  const db = ctx.database.db;
  const program = await getProgramNameAndWebsite(db, ctx.program.id);
  const data = body.personalization ?? {};
  const fill = (template: string) =>
    template.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (_, key: string) => {
      const value = key === 'name' ? (body.name ?? data.name) : data[key];
      return value === undefined || value === null ? '' : String(value);
    });
  const greeting = body.name ? `Hi ${body.name},` : 'Hi,';
  const subject = fill(
    typeof data.subject === 'string' ? data.subject : `You are invited to ${program.name}`,
  );
  const message = fill(
    typeof data.message === 'string'
      ? data.message
      : `You are invited to join ${program.name}${program.website ? ` at ${program.website}` : ''}: refer your friends and earn rewards.`,
  );
  const text = `${greeting}\n\n${message}\n`;
  const html = `<p>${escapeText(greeting)}</p><p>${escapeText(message)}</p>`;
  await queueEmail(db, ctx.program.id, { to: body.email, subject, text, html }, nowTimestamp(ctx.clock));
}
