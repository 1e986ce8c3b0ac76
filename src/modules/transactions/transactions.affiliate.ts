import { AppError } from '../../core/errors.ts';
import type { TransactionBehaviour } from './transactions.shared.ts';

const pending = async (): Promise<never> => {
  throw new AppError('internal', 'Not implemented yet.');
};

/** Sales of affiliate programs: the customer's partner earns a commission (and its parent, tier two). */
export const affiliateTransactions: TransactionBehaviour = {
  record: pending,
  serialize: pending,
  applyEffects: pending,
  listFilter: pending,
};
