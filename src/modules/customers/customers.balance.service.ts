import type { ProgramContext } from '../../context.ts';
import { booleanOf } from '../../core/booleans.ts';
import { isCurrencyCode } from '../../core/currencies.ts';
import { fieldError } from '../../core/errors.ts';
import { amountOrThrow, microsFrom, microsToNumber } from '../../core/money.ts';
import { balanceMetric } from '../../core/rewards.ts';
import { nowTimestamp } from '../../core/time.ts';
import { readEntityCounters, subtractIfAvailable } from '../counters/counters.repository.ts';
import * as repository from './customers.balance.repository.ts';
import type { CreditBalanceBody } from './customers.balance.schemas.ts';
import { getReferralCustomerOrThrow, loadReferralCustomer } from './customers.referral.ts';

/**
 * A refer-a-friend customer's balance: the `ok` rewards it earned, per unit, minus what the
 * company credited (handed over in its own system). Balances are entity counters fed by sales in
 * their transaction; a credit takes from them with one atomic conditional update.
 */

// A customer holding more distinct non-currency rewards than this sees the oldest ones.
const MAX_NON_CURRENCY = 500;

export async function getCustomerBalance(ctx: ProgramContext, id: string) {
  const db = ctx.database.db;
  const row = await getReferralCustomerOrThrow(db, ctx, id);
  const [{ record: customer, counters }, rewards] = await Promise.all([
    loadReferralCustomer(db, ctx, row),
    repository.listNonCurrencyRewards(db, ctx.program.id, row.id, MAX_NON_CURRENCY),
  ]);
  const currency = [...counters]
    .filter(([metric]) => metric.startsWith('balance:'))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([metric, micros]) => ({
      amount: microsToNumber(micros),
      amount_units: metric.slice('balance:'.length).toUpperCase(),
      is_currency: true,
    }));
  const nonCurrency = rewards.map((reward) => ({
    reward_type: reward.amount_units,
    commission_type: reward.commission_type,
    reward_value: microsToNumber(microsFrom(reward.amount)),
    created_at: reward.created_at,
  }));
  return { customer, balance: { currency, non_currency: nonCurrency } };
}

export async function creditCustomerBalance(
  ctx: ProgramContext,
  id: string,
  body: CreditBalanceBody,
): Promise<void> {
  // The money rule (core/money.ts): exact to a micro-unit below 10^12, or a 422 on `amount`.
  const micros = amountOrThrow(body.amount, 'amount', { allowNegative: true });
  if (micros <= 0n) throw fieldError('amount', 'gt', 0);
  const isCurrency = booleanOf(body.is_currency, false);
  if (isCurrency && !isCurrencyCode(body.amount_units)) throw fieldError('amount_units', 'invalid');
  await ctx.database.db.transaction().execute(async (trx) => {
    const row = await getReferralCustomerOrThrow(trx, ctx, id);
    const metric = balanceMetric(isCurrency, body.amount_units);
    const taken = await subtractIfAvailable(
      trx,
      ctx.program.id,
      { kind: 'customer', id: row.id },
      metric,
      micros,
    );
    if (!taken) {
      const figures = await readEntityCounters(trx, ctx.program.id, { kind: 'customer', id: row.id });
      const available = figures.micros(metric);
      throw fieldError(
        'amount',
        'overBalance',
        microsToNumber(available > 0n ? available : 0n),
        body.amount_units,
      );
    }
    await repository.insertBalanceCredit(trx, {
      program_id: ctx.program.id,
      customer_id: row.id,
      amount: micros,
      amount_units: isCurrency ? body.amount_units.toUpperCase() : body.amount_units.toLowerCase(),
      is_currency: isCurrency,
      created_at: nowTimestamp(ctx.clock),
    });
  });
}
