import { AppError } from '../../core/errors.ts';
import { renderProblem } from '../../core/messages.ts';
import { moneyInWords } from '../../core/portal.ts';
import { dayOf } from '../../core/time.ts';
import { listCommissions, reviewCommissions } from '../commissions/commissions.service.ts';
import { partnerNamesByPublicIds } from '../partners/partners.service.ts';
import type { CommissionFilter, CommissionItem } from './console.commissions.views.tsx';
import { type ConsoleProgram, logActivity } from './console.programs.service.ts';

/** The commissions page's reads and writes, through the commissions service as `/v1` does them. */

export const PAGE_SIZE = 50;

export async function commissionsPage(program: ConsoleProgram, filter: CommissionFilter, page: number) {
  const rows = await listCommissions(program.ctx, {
    page,
    limit: PAGE_SIZE,
    sort: 'desc',
    ...(filter !== '' ? { status: filter } : {}),
  });
  const shown = rows.slice(0, PAGE_SIZE);
  // The page's partners in one read, by the ids the commissions name them with.
  const partners = await partnerNamesByPublicIds(program.ctx.database.db, program.ctx.program.id, [
    ...new Set(shown.map((row) => row.partner)),
  ]);
  const names = new Map(
    partners.map((partner) => [
      partner.public_id,
      [partner.name, partner.surname].filter(Boolean).join(' ') || partner.email,
    ]),
  );
  const items: CommissionItem[] = shown.map((row) => ({
    id: row.id,
    partner: names.get(row.partner) ?? row.partner,
    sale: row.transaction ?? (row.kind === 'manual' ? 'Manual' : '—'),
    amount: moneyInWords(row.amount, row.currency),
    status: row.status,
    created: dayOf(row.created_at),
  }));
  return { items, hasNext: rows.length > PAGE_SIZE };
}

export type ReviewOutcome = { kind: 'done'; count: number } | { kind: 'refused'; problem: string };

/** Approves or denies the selection: all of it or none, as `POST /v1/commissions/approve` does. */
export async function reviewSelected(
  program: ConsoleProgram,
  action: 'approve' | 'deny',
  ids: readonly string[],
  reason: string,
): Promise<ReviewOutcome> {
  const numbers = [...new Set(ids.filter((id) => /^\d{1,15}$/.test(id)).map(Number))];
  if (numbers.length === 0) return { kind: 'refused', problem: 'Select at least one commission.' };
  try {
    const moved = await reviewCommissions(program.ctx, action, {
      ids: numbers,
      ...(reason !== '' ? { reason: reason.slice(0, 1000) } : {}),
    });
    await logActivity(program, `commission.${action}`, {
      subject: numbers.map((id) => `#${id}`).join(', '),
      ...(reason !== '' ? { changes: { reason: { before: null, after: reason.slice(0, 1000) } } } : {}),
    });
    return { kind: 'done', count: moved.length };
  } catch (error) {
    if (!(error instanceof AppError) || error.status !== 422) throw error;
    const named = error.problems.map((problem) => {
      const index = Number(problem.field.split('.')[1]);
      const id = Number.isInteger(index) ? numbers[index] : undefined;
      return id !== undefined ? `#${id}: ${renderProblem(problem)}` : renderProblem(problem);
    });
    return {
      kind: 'refused',
      problem: `Nothing was ${action === 'approve' ? 'approved' : 'denied'}. ${named.join(' ')}`,
    };
  }
}
