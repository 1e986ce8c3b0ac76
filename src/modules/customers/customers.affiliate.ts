import { AppError } from '../../core/errors.ts';
import type { CustomerBehaviour } from './customers.shared.ts';

const pending = async (): Promise<never> => {
  throw new AppError('internal', 'Not implemented yet.');
};

/** Customers of affiliate programs: they belong to a partner and feed its figures. */
export const affiliateCustomers: CustomerBehaviour = {
  create: pending,
  get: pending,
  list: pending,
  search: pending,
  update: pending,
  remove: pending,
  transactions: pending,
};
