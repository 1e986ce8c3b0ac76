/** The program settings that commission review and payouts read. */
import type { Kysely } from 'kysely';
import { programSettingsOf } from '../../core/program-settings.ts';
import type { DB } from '../../db/tables.ts';
import { readProgram } from '../program/program.service.ts';

/** The program settings commission review and payouts read, defaults filled in. */
export async function commissionSettings(db: Kysely<DB>, programId: number) {
  const row = await readProgram(db, programId);
  const settings = programSettingsOf('affiliate', row?.settings ?? '{}');
  return {
    currency: String(settings.currency ?? 'USD').toUpperCase(),
    autoApprove: settings.commission_auto_approve !== false,
    payoutMinimum: (settings.payout_minimum ?? {}) as Record<string, number | string>,
    payoutTermsDays: Number(settings.payout_terms_days ?? 0),
  };
}
