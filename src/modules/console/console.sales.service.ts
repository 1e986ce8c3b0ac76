import { moneyInWords } from '../../core/portal.ts';
import { dayOf } from '../../core/time.ts';
import { listCustomers, searchCustomers } from '../customers/customers.service.ts';
import { getTransaction, listTransactions, refundTransaction } from '../transactions/transactions.service.ts';
import { found, refusedAsErrors } from './console.outcomes.service.ts';
import { type ConsoleProgram, logActivity } from './console.programs.service.ts';

/** Customers and transactions of affiliate and refer-a-friend programs, through their services. */

export { RefundTransactionBody } from '../transactions/transactions.schemas.ts';

import type { RefundTransactionBody } from '../transactions/transactions.schemas.ts';

export const PAGE_SIZE = 50;

const window = (page: number) => ({ page, limit: PAGE_SIZE, sort: 'desc' as const });

const nameOf = (row: { name?: string | null; surname?: string | null; email?: string | null }) =>
  [row.name, row.surname].filter(Boolean).join(' ') || row.email || '—';

/** An amount with its unit: money in the currency's words, other units (points) after the number. */
export const amountText = (amount: number, units: string | null, isCurrency: boolean) =>
  isCurrency && units ? moneyInWords(amount, units) : `${amount}${units ? ` ${units}` : ''}`;

/** One page of customers, newest first; the search names one by e-mail, key or id. */
export async function customersPage(program: ConsoleProgram, search: string, page: number) {
  let rows: Awaited<ReturnType<typeof listCustomers>>;
  if (search === '') rows = await listCustomers(program.ctx, window(page));
  else if (search.includes('@'))
    rows = await searchCustomers(program.ctx, { ...window(page), email: search });
  else {
    rows = await searchCustomers(program.ctx, { ...window(page), key: search });
    if (rows.length === 0) rows = await searchCustomers(program.ctx, { ...window(page), id: search });
  }
  return {
    items: rows.slice(0, PAGE_SIZE).map((row) => ({
      key: 'key' in row ? row.key : row.id,
      name: nameOf(row),
      email: row.email ?? '',
      partner: 'partner' in row ? (row.partner ?? '') : '',
      created: dayOf(row.created_at),
    })),
    hasNext: rows.length > PAGE_SIZE,
  };
}

/** One page of transactions, newest first; the search is a transaction's key or its customer's key. */
export async function transactionsPage(program: ConsoleProgram, search: string, page: number) {
  let rows = await listTransactions(program.ctx, { ...window(page), ...(search ? { key: search } : {}) });
  if (search !== '' && rows.length === 0)
    rows = await listTransactions(program.ctx, { ...window(page), customer_key: search });
  return {
    items: rows.slice(0, PAGE_SIZE).map((row) => transactionItem(row)),
    hasNext: rows.length > PAGE_SIZE,
  };
}

type TransactionWire = Awaited<ReturnType<typeof getTransaction>>;

function transactionItem(row: TransactionWire) {
  return {
    key: row.key,
    action: row.action,
    amount: amountText(row.amount, row.amount_units, row.is_currency),
    refunded:
      row.refunded_amount > 0 ? amountText(row.refunded_amount, row.amount_units, row.is_currency) : '',
    customer:
      'referred_customer' in row ? (row.referred_customer ?? row.customer ?? '') : (row.customer ?? ''),
    archived: row.deleted_at !== null,
    created: dayOf(row.created_at),
  };
}

/** One transaction with its rewards; undefined for another program's or an unknown key. */
export async function transactionDetail(program: ConsoleProgram, key: string) {
  const row = await found(() => getTransaction(program.ctx, key));
  if (!row) return undefined;
  return {
    ...transactionItem(row),
    left: row.amount - row.refunded_amount,
    units: row.amount_units ?? '',
    rewards: row.rewards.map((reward, i) => ({
      id: `${i}`,
      to:
        'partner' in reward && typeof reward.partner === 'string'
          ? `Partner ${reward.partner}`
          : `Customer ${reward.customer ?? ''}`,
      amount: amountText(reward.amount, reward.amount_units, reward.is_currency),
      status: reward.status,
    })),
  };
}

export type TransactionDetail = NonNullable<Awaited<ReturnType<typeof transactionDetail>>>;

/** Refunds the amount (all that is left when none), as `POST /v1/transactions/{key}/refund` does. */
export const refund = (program: ConsoleProgram, key: string, body: RefundTransactionBody) =>
  refusedAsErrors(async () => {
    const before = await getTransaction(program.ctx, key);
    const after = await refundTransaction(program.ctx, key, body);
    await logActivity(program, 'transaction.refund', {
      subject: key,
      changes: { refunded_amount: { before: before.refunded_amount, after: after.refunded_amount } },
    });
  }, 'amount');
