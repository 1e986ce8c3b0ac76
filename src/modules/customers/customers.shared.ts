import type { Kysely, Selectable } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { AppError, fieldError } from '../../core/errors.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { normalizeTimestamp } from '../../core/time.ts';
import type { CustomersTable } from '../../db/domain-tables.ts';
import type { DB } from '../../db/tables.ts';
import { type CustomerRef, findCustomerBy } from './customers.repository.ts';

/**
 * What the customers module shares between program types: which types have customers, what each
 * type must implement (customers.behaviour.ts), and customer lookups. Each type's behaviour lives
 * in `customers.<type>.ts` and is listed in customers.service.ts.
 */
export const customerProgramTypes = ['affiliate', 'referral'] as const satisfies readonly ProgramType[];
export type CustomerProgramType = (typeof customerProgramTypes)[number];

export type CustomerRow = Selectable<CustomersTable>;

/**
 * A client-given signup time in the stored form, or `now` when none was given. A time after
 * `now` (the injected clock's) would count a signup in days that have not happened: 422 on `field`.
 */
export function signupTimeOrThrow(given: string | undefined, now: string, field: string): string {
  if (given === undefined) return now;
  const normalized = normalizeTimestamp(given);
  if (normalized === undefined) throw fieldError(field, 'format');
  if (normalized > now) throw fieldError(field, 'notFuture');
  return normalized;
}

/**
 * Takes a customer's own sales back before the customer is deleted. The transactions module
 * passes it in (through the route), so customers never depend on sales.
 */
export type TakeSales = (trx: Kysely<DB>, ctx: ProgramContext, customerId: number) => Promise<void>;

/**
 * Writes a customer's new key onto its sales, which keep it (migration 0043), in the caller's
 * transaction. The transactions module passes it in (through the route), as `TakeSales`.
 */
export type RenameSales = (
  trx: Kysely<DB>,
  ctx: ProgramContext,
  customerId: number,
  key: string,
) => Promise<void>;

/** The customer whose sales `GET /v1/customers/{id}/transactions` lists, and the rows to list. */
export interface CustomerSalesPage {
  customerId: number;
  window: { offset: number; fetch: number };
}

export function customerNotFound(): AppError {
  return new AppError('not_found', 'Customer not found.');
}

/** The customer named by `id`, `key` or `email` (first given wins, in that order). */
export async function findCustomerByRef(
  db: Kysely<DB>,
  programId: number,
  ref: CustomerRef,
): Promise<CustomerRow | undefined> {
  if (ref.id !== undefined) return findCustomerBy(db, programId, 'public_id', ref.id);
  if (ref.key !== undefined) return findCustomerBy(db, programId, 'key', ref.key);
  if (ref.email !== undefined) return findCustomerBy(db, programId, 'email', ref.email);
  return undefined;
}

export async function getCustomerByRefOrThrow(db: Kysely<DB>, programId: number, ref: CustomerRef) {
  const row = await findCustomerByRef(db, programId, ref);
  if (!row) throw customerNotFound();
  return row;
}

/** A path segment names a customer by key (affiliate) or by id then key (refer-a-friend). */
export async function getCustomerByPathOrThrow(
  db: Kysely<DB>,
  programId: number,
  segment: string,
  order: readonly ('public_id' | 'key' | 'email')[],
) {
  for (const column of order) {
    const row = await findCustomerBy(db, programId, column, segment);
    if (row) return row;
  }
  throw customerNotFound();
}
