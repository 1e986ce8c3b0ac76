/**
 * What a sale's own rules read before the sale is written (issue 27): the program's fraud
 * settings, the click `context.click_id` names (`fast_conversion`) and the portal sightings of
 * the buyer's address or click (`same_address`, of any owner: the sale learns its owner later).
 * Chosen once by database, like the sale's writer: SQLite reads each in the process, a read only
 * when its rule is on; PostgreSQL reads them in one statement (ADR 0138).
 */
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { type FraudSettings, fraudSettingsOf, runsSaleRules } from '../../core/fraud.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { formatTimestamp } from '../../core/time.ts';
import { pick } from '../../db/locks.ts';
import type { DB } from '../../db/tables.ts';
import { readProgram } from '../program/program.service.ts';
import { findClickFacts } from '../tracking/tracking.service.ts';
import { selectSaleEvidence } from './fraud.sale-evidence.repository.ts';
import { NONE } from './fraud.sightings.repository.ts';
import {
  type FoundSighting,
  findSightings,
  SIGHTING_DAYS,
  type SightingLookup,
} from './fraud.sightings.service.ts';

export interface SaleEvidence {
  settings: FraudSettings;
  click?: { owner: { kind: string; id: number }; clickedAt: string };
  sightings: FoundSighting[];
}

type EvidenceReader = (
  db: Kysely<DB>,
  ctx: ProgramContext,
  clickId: string | undefined,
  lookup: SightingLookup,
) => Promise<SaleEvidence | undefined>;

/** The fraud settings of a program's stored settings (JSON text). */
export const fraudSettingsOfStored = (ctx: ProgramContext, stored: string | undefined) =>
  fraudSettingsOf(programSettingsOf(ctx.program.type, stored ?? '{}'));

/** Each read on its own, and only the reads of the rules that are on. */
const readEach: EvidenceReader = async (db, ctx, clickId, lookup) => {
  const settings = fraudSettingsOfStored(ctx, (await readProgram(db, ctx.program.id))?.settings);
  if (!runsSaleRules(settings)) return undefined;
  const click =
    clickId !== undefined && settings.fraud_rules.fast_conversion !== 'off'
      ? await findClickFacts(db, ctx.program.id, clickId)
      : undefined;
  const sightings = settings.fraud_rules.same_address !== 'off' ? await findSightings(db, ctx, lookup) : [];
  return {
    settings,
    sightings,
    ...(click ? { click: { owner: click.owner, clickedAt: click.clickedAt } } : {}),
  };
};

/** All in one statement; what a rule that is off would read is dropped. */
const readAtOnce: EvidenceReader = async (db, ctx, clickId, lookup) => {
  const [firstAddress = NONE, secondAddress = firstAddress, ...more] = lookup.addresses;
  // More names than the statement's slots (several retired server keys): each on its own.
  if (more.length > 0) return readEach(db, ctx, clickId, lookup);
  const since = formatTimestamp(ctx.clock.nowMicros() - SIGHTING_DAYS * 86_400_000_000);
  const [row] = await selectSaleEvidence(db, {
    programId: ctx.program.id,
    clickId: clickId ?? NONE,
    firstAddress,
    secondAddress,
    since,
  });
  const settings = fraudSettingsOfStored(ctx, row?.settings);
  if (!row || !runsSaleRules(settings)) return undefined;
  const rules = settings.fraud_rules;
  const click =
    row.click && rules.fast_conversion !== 'off'
      ? { owner: { kind: row.click[0], id: Number(row.click[1]) }, clickedAt: row.click[2] }
      : undefined;
  const sightings =
    rules.same_address !== 'off'
      ? row.sightings.map(([kind, value, ownerKind, ownerId]) => ({
          kind,
          value,
          owner: { kind: ownerKind, id: Number(ownerId) },
        }))
      : [];
  return { settings, sightings, ...(click ? { click } : {}) };
};

/** The reader of a sale's evidence for the program's database. */
export const saleEvidenceReaderOf = (ctx: ProgramContext): EvidenceReader =>
  pick<EvidenceReader>(ctx.database, { sqlite: readEach, postgres: readAtOnce });
