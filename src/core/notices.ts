/**
 * The e-mails people expect from a program besides sign-in links and payouts: a partner's welcome
 * and "you earned new commissions". Pure: the notices service decides when, the outbox sends.
 * Everything a person or a client typed is escaped in the HTML part.
 */

export interface NoticeEmail {
  subject: string;
  text: string;
  html: string;
}

/** A paragraph of text, or a line of text followed by a link. */
type Paragraph = string | { text: string; href: string };

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const hello = (name: string | null) => `Hello${name ? ` ${name}` : ''},`;

function render(subject: string, paragraphs: readonly Paragraph[]): NoticeEmail {
  const asText = (p: Paragraph) => (typeof p === 'string' ? p : `${p.text}\n${p.href}`);
  const asHtml = (p: Paragraph) =>
    typeof p === 'string'
      ? `<p>${escapeHtml(p)}</p>`
      : `<p>${escapeHtml(p.text)}<br><a href="${escapeHtml(p.href)}">${escapeHtml(p.href)}</a></p>`;
  return { subject, text: `${paragraphs.map(asText).join('\n\n')}\n`, html: paragraphs.map(asHtml).join('') };
}

export interface PartnerWelcome {
  programName: string;
  partnerName: string | null;
  /** False while the program reviews the partner's application. */
  approved: boolean;
  /** The link the partner shares; empty when the partner has none. */
  referralLink: string;
  /** The partner portal, where the partner signs in. */
  portalUrl: string;
}

export function partnerWelcomeEmail(welcome: PartnerWelcome): NoticeEmail {
  const { programName } = welcome;
  const status = welcome.approved
    ? `You are now a partner of ${programName}.`
    : `Thank you for applying to the ${programName} partner program. We will let you know when your application is approved.`;
  return render(`Welcome to the ${programName} partner program`, [
    hello(welcome.partnerName),
    status,
    ...(welcome.referralLink ? [{ text: 'Your referral link, to share:', href: welcome.referralLink }] : []),
    { text: 'Your partner portal, for your figures, commissions and payouts:', href: welcome.portalUrl },
  ]);
}

export interface CustomerWelcome {
  programName: string;
  customerName: string | null;
  /** The link the customer shares with friends. */
  referralLink: string;
  /** The customer portal, where the customer signs in with a link. */
  portalUrl: string;
}

/** A refer-a-friend customer's welcome: the link to share and the portal (sent only when it is on). */
export function customerWelcomeEmail(welcome: CustomerWelcome): NoticeEmail {
  const { programName } = welcome;
  return render(`Your ${programName} referral link`, [
    hello(welcome.customerName),
    `Share ${programName} with your friends: when they join through your link, you both can earn rewards.`,
    { text: 'Your referral link, to share:', href: welcome.referralLink },
    { text: 'Your page, for the friends who joined and your rewards:', href: welcome.portalUrl },
  ]);
}

export interface NewCommissions {
  programName: string;
  partnerName: string | null;
  /** How many commissions were earned since the last notice. */
  count: number;
  /** Their totals, one per currency, already formatted ("12.50 USD"). */
  totals: readonly string[];
  portalUrl: string;
}

export function newCommissionsEmail(notice: NewCommissions): NoticeEmail {
  const what = notice.count === 1 ? 'a new commission' : `${notice.count} new commissions`;
  const worth = notice.totals.length > 0 ? ` worth ${notice.totals.join(' and ')}` : '';
  return render(`${notice.programName}: you earned ${what}`, [
    hello(notice.partnerName),
    `You earned ${what}${worth} as a partner of ${notice.programName}.`,
    { text: 'See them in your partner portal:', href: notice.portalUrl },
  ]);
}

export interface PartnerApplied {
  programName: string;
  partnerName: string | null;
  partnerEmail: string;
  /** The console's list of applicants awaiting approval. */
  reviewUrl: string;
}

/** To a program's owners: someone applied to be a partner and waits for their approval. */
export function partnerAppliedEmail(applied: PartnerApplied): NoticeEmail {
  const who = applied.partnerName ? `${applied.partnerName} (${applied.partnerEmail})` : applied.partnerEmail;
  return render(`${applied.programName}: a new partner applied`, [
    'Hello,',
    `${who} applied to the ${applied.programName} partner program and waits for your approval.`,
    { text: 'Review the applicants in the console:', href: applied.reviewUrl },
  ]);
}

/** Keyset position in creation order: `(created_at, id)`, as every list orders (contract §4.19). */
export interface NoticeCursor {
  createdAt: string;
  id: number;
}

/** Only news is announced: rows older than this when first seen (a worker stopped for days, a seed) are not. */
export const NOTICE_HORIZON_MS = 24 * 60 * 60 * 1000;
/**
 * Rows are announced once they are this old: a row written by a transaction that has not committed
 * yet is invisible, and may carry an earlier stamp than rows already seen; no write stays open this
 * long (the request timeout is 30 s), so nothing is skipped behind the cursor.
 */
export const NOTICE_SETTLE_MS = 60 * 1000;

/** Where a pass starts: the stored cursor, but never before the horizon. */
export function noticeStart(stored: NoticeCursor | undefined, horizon: string): NoticeCursor {
  if (stored === undefined || stored.createdAt < horizon) return { createdAt: horizon, id: 0 };
  return stored;
}
