import { moneyInWords } from '../../core/portal.ts';
import { dayOf } from '../../core/time.ts';
import { listCommissions, settleDueCommissions } from '../commissions/commissions.service.ts';
import { listCustomers } from '../customers/customers.service.ts';
import { listPartnerLinks } from '../partners/partners.links.service.ts';
import { archivePartner, getPartner, revokeArchivePartner } from '../partners/partners.service.ts';
import { found } from './console.outcomes.service.ts';
import { type ConsoleProgram, logActivity } from './console.programs.service.ts';

/** One partner of an affiliate program: its links, figures, customers, commissions and payout method. */

/** How many of its links, customers and commissions the page shows (newest first). */
export const SHOWN = 20;

const amounts = (list: readonly { currency: string; amount: number }[]) =>
  list.length === 0 ? '—' : list.map((x) => moneyInWords(x.amount, x.currency)).join(', ');

/** The partner named by the URL, or undefined for another program's or an unknown id. */
export async function partnerDetail(program: ConsoleProgram, id: string) {
  const partner = await found(() => getPartner(program.ctx, id, settleDueCommissions));
  if (!partner) return undefined;
  const window = { page: 1, limit: SHOWN, sort: 'desc' as const };
  const links = await listPartnerLinks(program.ctx, partner.id, window);
  const customers = await listCustomers(program.ctx, { ...window, partner: { id: partner.id } });
  const commissions = await listCommissions(program.ctx, { ...window, partner: partner.id });
  const details = Object.entries(partner.payout_details ?? {})
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .map(([key, value]) => `${key}: ${value}`);
  return {
    id: partner.id,
    name: [partner.name, partner.surname].filter(Boolean).join(' ') || partner.email,
    email: partner.email,
    approved: partner.approved,
    status: partner.status,
    joined: dayOf(partner.created_at),
    payout: { method: partner.payout_method ?? 'not set', details },
    figures: [
      { label: 'Clicks', value: String(partner.referrals.clicks) },
      { label: 'Signups', value: String(partner.referrals.signups) },
      { label: 'Sales', value: String(partner.referrals.sales_count) },
      { label: 'Revenue', value: amounts(partner.referrals.revenue) },
      { label: 'Commissions in review', value: amounts(partner.commissions.pending) },
      { label: 'Commissions not paid', value: amounts(partner.commissions.not_paid) },
    ],
    links: links.slice(0, SHOWN).map((link) => ({ key: link.key, url: link.url, isDefault: link.default })),
    customers: customers.slice(0, SHOWN).map((row) => ({
      key: 'key' in row ? row.key : row.id,
      name: [row.name, row.surname].filter(Boolean).join(' ') || row.email || '—',
      email: row.email ?? '',
      created: dayOf(row.created_at),
    })),
    commissions: commissions.slice(0, SHOWN).map((row) => ({
      id: row.id,
      sale: row.transaction ?? (row.kind === 'manual' ? 'Manual' : '—'),
      amount: moneyInWords(row.amount, row.currency),
      status: row.status,
      created: dayOf(row.created_at),
    })),
  };
}

export type PartnerDetail = NonNullable<Awaited<ReturnType<typeof partnerDetail>>>;

/** Archives the partner (its links stop bringing customers), or brings it back; false if unknown. */
export async function setArchived(program: ConsoleProgram, id: string, archived: boolean) {
  const before = await found(() => getPartner(program.ctx, id, settleDueCommissions));
  if (!before) return false;
  if (archived) await archivePartner(program.ctx, id);
  else await revokeArchivePartner(program.ctx, id);
  const after = await found(() => getPartner(program.ctx, id, settleDueCommissions));
  await logActivity(program, archived ? 'partner.archive' : 'partner.unarchive', {
    subject: id,
    changes:
      after && after.status !== before.status
        ? { status: { before: before.status, after: after.status } }
        : {},
  });
  return true;
}
