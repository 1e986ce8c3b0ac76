import type { Kysely } from 'kysely';
import { AppError } from '../../core/errors.ts';
import { microsFrom, microsToNumber } from '../../core/money.ts';
import type { DB } from '../../db/tables.ts';
import type { NamedPayoutItemRow, PayoutRow } from './payouts.repository.ts';
import * as repository from './payouts.repository.ts';

export function payoutNotFound(): AppError {
  return new AppError('not_found', 'Payout not found.');
}

export function toPayoutEntry(row: PayoutRow) {
  return {
    id: row.public_id,
    status: row.status as 'pending' | 'paid' | 'cancelled',
    currency: row.currency,
    total: microsToNumber(microsFrom(row.total)),
    partner_count: Number(row.partner_count),
    created_at: row.created_at,
    paid_at: row.paid_at,
    cancelled_at: row.cancelled_at,
  };
}

/** Every item of a payout with its partner's names as they are now, a page of 5,000 at a time. */
export async function* namedItemsOf(db: Kysely<DB>, programId: number, payoutId: number, limit = 5000) {
  let after = 0;
  for (;;) {
    const items = await repository.listNamedPayoutItems(db, programId, payoutId, { after, limit });
    if (items.length > 0) yield items;
    const last = items.at(-1);
    if (items.length < limit || last === undefined) return;
    after = Number(last.id);
  }
}

export async function toPayout(db: Kysely<DB>, programId: number, row: PayoutRow) {
  const items: ReturnType<typeof toItem>[] = [];
  for await (const page of namedItemsOf(db, programId, Number(row.id)))
    for (const item of page) items.push(toItem(item));
  return { ...toPayoutEntry(row), items };
}

export function toItem(item: NamedPayoutItemRow) {
  return {
    partner: item.partner_public_id ?? '',
    amount: microsToNumber(microsFrom(item.amount)),
    commission_count: Number(item.commission_count),
    payout_method: item.payout_method as 'paypal' | 'wise' | 'bank_transfer' | 'manual' | null,
  };
}

export async function getRowOrThrow(db: Kysely<DB>, programId: number, id: string, lock = false) {
  const row = await repository.findPayoutByPublicId(db, programId, id, lock);
  if (!row) throw payoutNotFound();
  return row;
}
