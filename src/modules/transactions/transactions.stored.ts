/** Stored sales of whichever type the program has, read by key. */
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import type { DB } from '../../db/tables.ts';
import type { AffiliateTransaction } from './transactions.affiliate.schemas.ts';
import { storedAffiliateSales } from './transactions.affiliate.ts';
import type { CreatedReferralTransaction, ReferralTransaction } from './transactions.referral.schemas.ts';
import { storedReferralSales } from './transactions.referral.ts';
import * as repository from './transactions.repository.ts';
import { type StoredSales, type TransactionProgramType, transactionNotFound } from './transactions.shared.ts';

export const storedSales = {
  affiliate: storedAffiliateSales,
  referral: storedReferralSales,
};

/** The stored sales of whichever type the program has: each answers its own type's shapes. */
export type AnyStoredSales =
  | StoredSales<AffiliateTransaction, AffiliateTransaction>
  | StoredSales<ReferralTransaction, CreatedReferralTransaction>;

export function storedSalesOf(ctx: ProgramContext): AnyStoredSales {
  return storedSales[ctx.program.type as TransactionProgramType];
}

/** The one entry a list of one row serializes to. */
export function onlyOne<Entries extends readonly unknown[]>(entries: Entries): Entries[number] {
  const [entry] = entries;
  if (entry === undefined) throw new Error('a stored sale serialized to no entry');
  return entry;
}

export async function getRowOrThrow(db: Kysely<DB>, ctx: ProgramContext, key: string) {
  const row = await repository.findTransactionByKey(db, ctx.program.id, key);
  if (!row) throw transactionNotFound();
  return row;
}
