import { AppError } from '../../core/errors.ts';
import { dayOf } from '../../core/time.ts';
import { approvePartner, listPartners, rejectPartner, searchPartners } from '../partners/partners.service.ts';
import type { PartnerFilter, PartnerItem } from './console.partners.views.tsx';
import type { ConsoleProgram } from './console.programs.service.ts';

/** The partners page's reads and writes, through the partners service as `/v1` does them. */

export const PAGE_SIZE = 50;

const filterQuery = (filter: PartnerFilter) => {
  switch (filter) {
    case 'pending':
      return { status: 'active', approved: false };
    case 'approved':
      return { approved: true };
    case 'rejected':
      return { status: 'pending' };
    case 'archived':
      return { status: 'archived' };
    case '':
      return {};
  }
};

/** One page of partners, newest first, with the filter and the search (an e-mail, a key or an id). */
export async function partnersPage(
  program: ConsoleProgram,
  filter: PartnerFilter,
  search: string,
  page: number,
) {
  const window = { page, limit: PAGE_SIZE, sort: 'desc' as const };
  const query = filterQuery(filter);
  let rows: Awaited<ReturnType<typeof listPartners>>;
  if (search === '') rows = await listPartners(program.ctx, { ...window, ...query });
  else if (search.includes('@')) rows = await searchPartners(program.ctx, { ...window, email: search });
  else {
    rows = await searchPartners(program.ctx, { ...window, key: search });
    if (rows.length === 0) rows = await searchPartners(program.ctx, { ...window, id: search });
  }
  const items: PartnerItem[] = rows.slice(0, PAGE_SIZE).map((row) => ({
    id: row.id,
    name: [row.name, row.surname].filter(Boolean).join(' ') || row.email,
    email: row.email,
    approved: row.approved,
    status: row.status,
    created: dayOf(row.created_at),
  }));
  return { items, hasNext: rows.length > PAGE_SIZE };
}

export type PartnerAction = 'approve' | 'reject';

/** Approves or rejects each partner named; answers how many moved and which ids were not found. */
export async function reviewPartners(program: ConsoleProgram, action: PartnerAction, ids: readonly string[]) {
  const move = action === 'approve' ? approvePartner : rejectPartner;
  let done = 0;
  const missing: string[] = [];
  for (const id of new Set(ids)) {
    try {
      await move(program.ctx, id);
      done += 1;
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 404) throw error;
      missing.push(id);
    }
  }
  return { done, missing };
}
