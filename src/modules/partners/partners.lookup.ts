import type { Kysely } from 'kysely';
import { AppError } from '../../core/errors.ts';
import type { DB } from '../../db/tables.ts';
import * as repository from './partners.repository.ts';

/** Finding a partner the ways clients name one; shared by partners, customers and transactions. */

export type PartnerRef = { id?: string | undefined; key?: string | undefined; email?: string | undefined };

export function partnerNotFound(): AppError {
  return new AppError('not_found', 'Partner not found.');
}

/** The partner named by `id`, `key` (any of its referral keys) or `email`, first given wins. */
export async function findPartnerByRef(db: Kysely<DB>, programId: number, ref: PartnerRef) {
  if (ref.id !== undefined) return repository.findPartnerBy(db, programId, 'public_id', ref.id);
  if (ref.key !== undefined) return repository.findPartnerByLinkKey(db, programId, ref.key);
  if (ref.email !== undefined) return repository.findPartnerBy(db, programId, 'email', ref.email);
  return undefined;
}

/** Several partners' names by public id, in one read: for lists that name each row's partner. */
export const partnerNamesByPublicIds = (db: Kysely<DB>, programId: number, publicIds: readonly string[]) =>
  repository.partnerNamesByPublicIds(db, programId, publicIds);

/** A path segment: a partner id first, then one of the partner's referral keys (contract §4.8). */
export async function getPartnerByPathOrThrow(db: Kysely<DB>, programId: number, segment: string) {
  const row =
    (await repository.findPartnerBy(db, programId, 'public_id', segment)) ??
    (await repository.findPartnerByLinkKey(db, programId, segment));
  if (!row) throw partnerNotFound();
  return row;
}
