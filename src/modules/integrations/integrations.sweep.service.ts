import { type Deps, keylessContext, type ProgramContext } from '../../context.ts';
import type { BillingProvider } from '../../core/billing.ts';
import { readProgram } from '../program/program.service.ts';
import { runPending } from './integrations.events.ts';
import * as repository from './integrations.repository.ts';

/** Integrations read per page of the sweep, and refunds run per integration and pass at most. */
const INTEGRATIONS_PAGE = 200;
const REFUNDS_PER_INTEGRATION = 100;

/**
 * The worker's sweep of refunds left waiting for a sale that has arrived (`vouch worker`, every
 * minute). A new sale runs the refunds waiting for its ids as soon as they are stored; a refund
 * stored `pending` just after that look-up (it looked for the sale's ids a moment before they
 * were committed), or a process stopped between the two, leaves one waiting for a sale that is
 * there. Each such refund runs here as the sale would have run it. Answers how many it tried
 * (one another process took meanwhile, or that cannot run yet, is left as it is).
 */
export async function runStrandedRefundsOfAllPrograms(deps: Deps): Promise<number> {
  const db = deps.database.db;
  let ran = 0;
  let after: { programId: number; provider: BillingProvider } | undefined;
  for (;;) {
    const page = await repository.listIntegrationsAfter(db, after, INTEGRATIONS_PAGE);
    for (const integration of page) {
      const programId = Number(integration.program_id);
      const stranded = await repository.listStrandedRefunds(
        db,
        programId,
        integration.provider,
        REFUNDS_PER_INTEGRATION,
      );
      if (stranded.length === 0) continue;
      const ctx = await contextOf(deps, programId);
      if (!ctx) continue;
      await runPending(
        ctx,
        integration.provider,
        stranded.map((row) => Number(row.id)),
        deps.log,
      );
      ran += stranded.length;
    }
    const last = page.at(-1);
    if (page.length < INTEGRATIONS_PAGE || !last) return ran;
    after = { programId: Number(last.program_id), provider: last.provider };
  }
}

/** The program's context as a processor's delivery has it (no key: the processor is no client). */
async function contextOf(deps: Deps, programId: number): Promise<ProgramContext | undefined> {
  const program = await readProgram(deps.database.db, programId);
  if (!program || program.type === 'newsletter') return undefined;
  return keylessContext(deps, { id: programId, public_id: program.public_id, type: program.type });
}
