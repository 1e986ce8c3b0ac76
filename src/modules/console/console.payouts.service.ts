import { AppError } from '../../core/errors.ts';
import { renderProblem } from '../../core/messages.ts';
import { moneyInWords } from '../../core/portal.ts';
import { dayOf } from '../../core/time.ts';
import { commissionSettings } from '../commissions/commissions.service.ts';
import { findPartnerByRef } from '../partners/partners.service.ts';
import {
  cancelPayout,
  createPayout,
  type ExportFormat,
  exportPayout,
  getPayout,
  listPayouts,
  markPayoutPaid,
} from '../payouts/payouts.service.ts';
import type { ConsoleProgram } from './console.programs.service.ts';

/** The payouts pages' reads and writes, through the payouts service as `/v1/payouts` does them. */

export const PAGE_SIZE = 50;

/** The currency a payout is made in unless the form names another: the program's. */
export const programCurrency = async (program: ConsoleProgram) =>
  (await commissionSettings(program.ctx.database.db, program.ctx.program.id)).currency;
export const payoutStatuses = ['pending', 'paid', 'cancelled'] as const;
export type PayoutStatus = (typeof payoutStatuses)[number];

export async function payoutsPage(program: ConsoleProgram, status: PayoutStatus | undefined, page: number) {
  const rows = await listPayouts(program.ctx, {
    page,
    limit: PAGE_SIZE,
    sort: 'desc',
    ...(status ? { status } : {}),
  });
  return {
    items: rows.slice(0, PAGE_SIZE).map((row) => ({
      id: row.id,
      status: row.status,
      total: moneyInWords(row.total, row.currency),
      partners: row.partner_count,
      created: dayOf(row.created_at),
    })),
    hasNext: rows.length > PAGE_SIZE,
  };
}

/** The refusal of a write as one sentence for the page, or the error itself when it is no refusal. */
function refusal(error: unknown): string {
  if (error instanceof AppError && (error.status === 422 || error.status === 404))
    return error.problems.length > 0 ? error.problems.map(renderProblem).join(' ') : error.message;
  throw error;
}

export type PayoutWrite = { kind: 'done'; id: string } | { kind: 'refused'; problem: string };

export async function createConsolePayout(program: ConsoleProgram, currency: string): Promise<PayoutWrite> {
  try {
    const payout = await createPayout(program.ctx, currency === '' ? {} : { currency });
    return { kind: 'done', id: payout.id };
  } catch (error) {
    return { kind: 'refused', problem: refusal(error) };
  }
}

/** A payout with each item's partner named; undefined for another program's or an unknown id. */
export async function payoutDetail(program: ConsoleProgram, id: string) {
  let payout: Awaited<ReturnType<typeof getPayout>>;
  try {
    payout = await getPayout(program.ctx, id);
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return undefined;
    throw error;
  }
  const db = program.ctx.database.db;
  const items = [];
  for (const item of payout.items.slice(0, 500)) {
    const partner = await findPartnerByRef(db, program.ctx.program.id, { id: item.partner });
    items.push({
      partner: partner
        ? [partner.name, partner.surname].filter(Boolean).join(' ') || partner.email
        : item.partner,
      email: partner?.email ?? '',
      amount: moneyInWords(item.amount, payout.currency),
      commissions: item.commission_count,
      method: item.payout_method ?? 'not set',
    });
  }
  return {
    id: payout.id,
    status: payout.status,
    currency: payout.currency,
    total: moneyInWords(payout.total, payout.currency),
    created: dayOf(payout.created_at),
    paid: payout.paid_at ? dayOf(payout.paid_at) : undefined,
    items,
    more: payout.items.length - items.length,
  };
}

export async function settlePayout(
  program: ConsoleProgram,
  id: string,
  action: 'mark-paid' | 'cancel',
): Promise<PayoutWrite> {
  try {
    if (action === 'mark-paid') await markPayoutPaid(program.ctx, id);
    else await cancelPayout(program.ctx, id);
    return { kind: 'done', id };
  } catch (error) {
    return { kind: 'refused', problem: refusal(error) };
  }
}

export const payoutFile = (program: ConsoleProgram, id: string, format: ExportFormat) =>
  exportPayout(program.ctx, id, format);
export type { ExportFormat };
