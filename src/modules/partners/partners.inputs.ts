/** What a create or update body becomes: a checked password, the referring partner, payout details. */
import type { Kysely } from 'kysely';
import { type FieldProblem, fieldError, problem, validationError } from '../../core/errors.ts';
import { passwordProblems } from '../../core/passwords.ts';
import { type PayoutDetails, type PayoutMethod, payoutDetailsProblems } from '../../core/payouts.ts';
import type { DB } from '../../db/tables.ts';
import { findPartnerByRef, type PartnerRef } from './partners.lookup.ts';

export function checkPassword(field: string, password: string | undefined): FieldProblem[] {
  return password === undefined ? [] : passwordProblems(field, password);
}

export async function resolveReferringPartner(
  db: Kysely<DB>,
  programId: number,
  ref: PartnerRef | undefined,
) {
  if (!ref || Object.keys(ref).length === 0) return null;
  const row = await findPartnerByRef(db, programId, ref);
  if (!row) throw fieldError('referring_partner', 'invalid');
  return row.id;
}

/**
 * The payout method and fields a create or update stores (undefined: unchanged). Fields without
 * a method use the stored one; a method replaces the stored fields.
 */
export function payoutValues(
  given: { payout_method?: PayoutMethod | undefined; payout_details?: PayoutDetails | undefined },
  stored: { method: string | null; details: string | null },
  prefix: string,
): { payout_method: string; payout_details: string } | FieldProblem[] | undefined {
  if (given.payout_method === undefined && given.payout_details === undefined) return undefined;
  const method = given.payout_method ?? (stored.method as PayoutMethod | null);
  if (method === null) return [problem(`${prefix}payout_method`, 'required')];
  const details =
    given.payout_details ?? (given.payout_method === undefined ? parseDetails(stored.details) : {});
  const problems = payoutDetailsProblems(method, details, prefix);
  if (problems.length > 0) return problems;
  return { payout_method: method, payout_details: JSON.stringify(details) };
}

export function parseDetails(text: string | null): PayoutDetails {
  const value: unknown = JSON.parse(text || '{}');
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as PayoutDetails) : {};
}

export function payoutValuesOrThrow(...args: Parameters<typeof payoutValues>) {
  const values = payoutValues(...args);
  if (Array.isArray(values)) throw validationError(values);
  return values;
}
