import type { Kysely } from 'kysely';
import type { Deps } from '../../context.ts';
import {
  customerWelcomeEmail,
  NOTICE_HORIZON_MS,
  NOTICE_SETTLE_MS,
  type NoticeCursor,
  newCommissionsEmail,
  noticeStart,
  partnerAppliedEmail,
  partnerWelcomeEmail,
} from '../../core/notices.ts';
import { exportAmount } from '../../core/payouts.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { formatTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { type OutgoingEmail, queueEmails } from '../../outbox/outbox.ts';
import { listNewCommissions } from '../commissions/commissions.news.service.ts';
import { ownerEmailsOf } from '../console/console.service.ts';
import { listNewReferralCustomers } from '../customers/customers.news.service.ts';
import { listNewPartners } from '../partners/partners.news.service.ts';
import { findPartnersByIds } from '../partners/partners.service.ts';
import { partnerPortalUrl, programsOfType, readProgram } from '../program/program.service.ts';
import { moveCursor, type NoticeKind, readCursor } from './notices.repository.ts';

/** Rows looked at per program and kind in one pass; a longer backlog continues in the next. */
const PAGE = 200;

type ProgramRow = NonNullable<Awaited<ReturnType<typeof readProgram>>>;

/** Another worker moved the cursor first: this pass's e-mails are rolled back, not sent twice. */
class CursorMoved extends Error {}

interface Pass {
  deps: Deps;
  /** Rows up to here are old enough to be announced (core/notices.ts). */
  until: string;
  horizon: string;
}

/**
 * The worker's notices pass over every affiliate program: welcome e-mails to new partners
 * (`welcome_email_enabled`) and one "you earned new commissions" e-mail per partner and pass
 * (`partner_email_notifications_enabled`). Both walk rows in creation order from a cursor per
 * program, so the write paths of partners and sales pay nothing for them. Answers how many
 * e-mails were queued.
 */
export async function queueDueNotices(deps: Deps): Promise<number> {
  const nowMs = deps.clock.nowMicros() / 1000;
  const pass: Pass = {
    deps,
    until: formatTimestamp((nowMs - NOTICE_SETTLE_MS) * 1000),
    horizon: formatTimestamp((nowMs - NOTICE_HORIZON_MS) * 1000),
  };
  let queued = 0;
  for await (const programs of programsOfType(deps.database.db, 'affiliate')) {
    for (const { id, settings } of programs) {
      const programId = Number(id);
      const enabled = programSettingsOf('affiliate', settings);
      queued += await welcomeNewPartners(pass, programId, enabled.welcome_email_enabled !== false);
      queued += await announceApplicants(pass, programId, enabled.new_partner_email_enabled !== false);
      queued += await announceNewCommissions(
        pass,
        programId,
        enabled.partner_email_notifications_enabled !== false,
      );
    }
  }
  for await (const programs of programsOfType(deps.database.db, 'referral')) {
    for (const { id, settings } of programs) {
      const enabled = programSettingsOf('referral', settings);
      // The e-mail points to the customer portal: without it there is nothing to welcome them to.
      const on = enabled.welcome_email_enabled !== false && enabled.referral_portal_enabled !== false;
      queued += await welcomeNewCustomers(pass, Number(id), on);
    }
  }
  return queued;
}

/** Refer-a-friend customers get their link and their portal, as partners get theirs. */
async function welcomeNewCustomers(pass: Pass, programId: number, enabled: boolean): Promise<number> {
  const db = pass.deps.database.db;
  const stored = await readCursor(db, programId, 'customer_welcome');
  const start = noticeStart(stored, pass.horizon);
  const program = await programOf(db, programId);
  const found = await listNewReferralCustomers(db, program, start, pass.until, enabled ? PAGE : 1);
  const last = found.at(-1);
  if (last === undefined) return 0;
  if (!enabled) return commit(pass, programId, 'customer_welcome', stored, skipTo(pass), []);
  const { config } = pass.deps;
  const portalUrl = `${config.publicUrl ?? `http://${config.host}:${config.port}`}/c/${program.public_id}`;
  const emails: OutgoingEmail[] = [];
  for (const customer of found) {
    if (customer.email === null) continue;
    emails.push({
      to: customer.email,
      ...customerWelcomeEmail({
        programName: program.name,
        customerName: customer.name,
        referralLink: customer.referralLink,
        portalUrl,
      }),
    });
  }
  return commit(pass, programId, 'customer_welcome', stored, last.cursor, emails);
}

async function welcomeNewPartners(pass: Pass, programId: number, enabled: boolean): Promise<number> {
  const db = pass.deps.database.db;
  const stored = await readCursor(db, programId, 'partner_welcome');
  const start = noticeStart(stored, pass.horizon);
  const partners = await listNewPartners(db, programId, start, pass.until, enabled ? PAGE : 1);
  const last = partners.at(-1);
  if (last === undefined) return 0;
  if (!enabled) return commit(pass, programId, 'partner_welcome', stored, skipTo(pass), []);
  const program = await programOf(db, programId);
  const portalUrl = portalOf(pass.deps, program);
  const emails = partners.map((partner) => ({
    to: partner.email,
    ...partnerWelcomeEmail({
      programName: program.name,
      partnerName: partner.name,
      approved: partner.approved,
      referralLink: partner.referralLink,
      portalUrl,
    }),
  }));
  return commit(pass, programId, 'partner_welcome', stored, last.cursor, emails);
}

/**
 * Tells the program's owners in the console of each partner who applied (not approved on
 * sign-up), with the link to the applicants (`new_partner_email_enabled`).
 */
async function announceApplicants(pass: Pass, programId: number, enabled: boolean): Promise<number> {
  const db = pass.deps.database.db;
  const stored = await readCursor(db, programId, 'partner_applied');
  const start = noticeStart(stored, pass.horizon);
  const partners = await listNewPartners(db, programId, start, pass.until, enabled ? PAGE : 1);
  const last = partners.at(-1);
  if (last === undefined) return 0;
  if (!enabled) return commit(pass, programId, 'partner_applied', stored, skipTo(pass), []);
  const applicants = partners.filter((partner) => !partner.approved);
  const owners = applicants.length > 0 ? await ownerEmailsOf(db, programId) : [];
  const program = await programOf(db, programId);
  const reviewUrl = `${baseOf(pass.deps)}/admin/programs/${program.public_id}/partners?status=pending`;
  const emails = applicants.flatMap((partner) =>
    owners.map((to) => ({
      to,
      ...partnerAppliedEmail({
        programName: program.name,
        partnerName: partner.name,
        partnerEmail: partner.email,
        reviewUrl,
      }),
    })),
  );
  return commit(pass, programId, 'partner_applied', stored, last.cursor, emails);
}

async function announceNewCommissions(pass: Pass, programId: number, enabled: boolean): Promise<number> {
  const db = pass.deps.database.db;
  const stored = await readCursor(db, programId, 'new_commissions');
  const start = noticeStart(stored, pass.horizon);
  const news = await listNewCommissions(db, programId, start, pass.until, enabled ? PAGE : 1);
  if (news.last === undefined) return 0;
  if (!enabled) return commit(pass, programId, 'new_commissions', stored, skipTo(pass), []);
  const program = await programOf(db, programId);
  const portalUrl = portalOf(pass.deps, program);
  const partners = await findPartnersByIds(db, programId, [...news.byPartner.keys()]);
  const emails: OutgoingEmail[] = [];
  for (const partner of partners) {
    const earned = news.byPartner.get(Number(partner.id));
    if (earned === undefined) continue;
    const totals = [...earned.totals]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currency, micros]) => `${exportAmount(micros, currency)} ${currency}`);
    emails.push({
      to: partner.email,
      ...newCommissionsEmail({
        programName: program.name,
        partnerName: [partner.name, partner.surname].filter(Boolean).join(' ') || null,
        count: earned.count,
        totals,
        portalUrl,
      }),
    });
  }
  return commit(pass, programId, 'new_commissions', stored, news.last, emails);
}

/** Past everything old enough: a notice turned off skips what happened meanwhile. */
const skipTo = (pass: Pass): NoticeCursor => ({ createdAt: pass.until, id: Number.MAX_SAFE_INTEGER });

/** Queues the e-mails and moves the cursor in one transaction; answers how many were queued. */
async function commit(
  pass: Pass,
  programId: number,
  kind: NoticeKind,
  from: NoticeCursor | undefined,
  to: NoticeCursor,
  emails: readonly OutgoingEmail[],
): Promise<number> {
  const now = formatTimestamp(pass.deps.clock.nowMicros());
  try {
    await pass.deps.database.db.transaction().execute(async (trx) => {
      if (!(await moveCursor(trx, programId, kind, from, to))) throw new CursorMoved();
      await queueEmails(trx, programId, emails, now);
    });
    return emails.length;
  } catch (error) {
    if (error instanceof CursorMoved) return 0;
    throw error;
  }
}

async function programOf(db: Kysely<DB>, programId: number): Promise<ProgramRow> {
  const program = await readProgram(db, programId);
  // Programs are never deleted; one listed a moment ago is there.
  if (program === undefined) throw new Error(`program ${programId} vanished`);
  return program;
}

/** The partner portal's address in an e-mail: on `PUBLIC_URL`, else the server's own address. */
function portalOf(deps: Deps, program: ProgramRow): string {
  const { config } = deps;
  return partnerPortalUrl(baseOf(deps), program.public_id, program.portal_host, config.publicUrl);
}

/** Where links in e-mails point: `PUBLIC_URL`, else the server's own address. */
const baseOf = ({ config }: Deps) => config.publicUrl ?? `http://${config.host}:${config.port}`;
