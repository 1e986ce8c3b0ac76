import { AppError } from '../../core/errors.ts';
import { renderProblem } from '../../core/messages.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { clearFraudFlag, confirmFraudFlag } from '../commissions/commissions.service.ts';
import { listFraudFlags } from '../fraud/fraud.service.ts';
import { partnerNamesByPublicIds } from '../partners/partners.service.ts';
import { type ConsoleProgram, logActivity } from './console.programs.service.ts';

/** The fraud review queue: flags by status, cleared or confirmed as `/v1/fraud/flags` does it. */

export const PAGE_SIZE = 50;
export const flagStatuses = ['open', 'cleared', 'confirmed'] as const;
export type FlagStatus = (typeof flagStatuses)[number];

/** Who refers in each program type, and where the console shows one (a path under the program). */
const ownersByType: Record<ProgramType, { word: string; path: (ref: string) => string }> = {
  affiliate: { word: 'partner', path: (id) => `/partners/${encodeURIComponent(id)}` },
  referral: { word: 'referring customer', path: (key) => `/customers?q=${encodeURIComponent(key)}` },
  newsletter: { word: 'referring subscriber', path: (id) => `/subscribers?q=${encodeURIComponent(id)}` },
};

/** Where the console shows a flag's subject (a customer, a sale, a subscriber). */
const subjectPaths: Record<string, ((ref: string) => string) | undefined> = {
  customer: (key) => `/customers?q=${encodeURIComponent(key)}`,
  transaction: (key) => `/transactions/${encodeURIComponent(key)}`,
  subscriber: (id) => `/subscribers?q=${encodeURIComponent(id)}`,
};

export async function flagsPage(program: ConsoleProgram, status: FlagStatus, page: number) {
  const rows = await listFraudFlags(program.ctx, { page, limit: PAGE_SIZE, sort: 'desc', status });
  const shown = rows.slice(0, PAGE_SIZE);
  // The partners the flags name, by name (or e-mail), in one read.
  const partners = await partnerNamesByPublicIds(program.ctx.database.db, program.ctx.program.id, [
    ...new Set(shown.filter((flag) => flag.owner.type === 'partner').map((flag) => flag.owner.id)),
  ]);
  const names = new Map(
    partners.map((partner) => [
      partner.public_id,
      [partner.name, partner.surname].filter(Boolean).join(' ') || partner.email,
    ]),
  );
  const owners = ownersByType[program.type];
  const items = shown.map((flag) => {
    const subjectPath = subjectPaths[flag.subject.type];
    return {
      ...flag,
      owner: {
        ...flag.owner,
        word: owners.word,
        name: names.get(flag.owner.id) ?? flag.owner.id,
        href: `${program.base}${owners.path(flag.owner.id)}`,
      },
      subjectHref: subjectPath ? `${program.base}${subjectPath(flag.subject.id)}` : undefined,
    };
  });
  return { items, hasNext: rows.length > PAGE_SIZE };
}

export type FlagDecision = 'clear' | 'confirm' | 'confirm-archive';

/** Clears or confirms one flag; a refusal (already decided, unknown) comes back in words. */
export async function decideFlag(program: ConsoleProgram, id: string, decision: FlagDecision) {
  try {
    if (decision === 'clear') await clearFraudFlag(program.ctx, id);
    else
      await confirmFraudFlag(program.ctx, id, { deny: true, archive_owner: decision === 'confirm-archive' });
    const after = decision === 'clear' ? 'cleared' : 'confirmed';
    await logActivity(program, `fraud.${decision === 'clear' ? 'clear' : 'confirm'}`, {
      subject: id,
      changes: {
        status: { before: 'open', after },
        ...(decision === 'confirm-archive' ? { owner: { before: 'active', after: 'archived' } } : {}),
      },
    });
    return { kind: 'done' as const, decision };
  } catch (error) {
    if (error instanceof AppError && (error.status === 422 || error.status === 404))
      return {
        kind: 'refused' as const,
        problem: error.problems.length > 0 ? error.problems.map(renderProblem).join(' ') : error.message,
      };
    throw error;
  }
}
