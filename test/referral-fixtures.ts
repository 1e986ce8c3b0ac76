import type { FastifyInstance } from 'fastify';
import { customersRoutes } from '../src/modules/customers/customers.routes.ts';
import { transactionsRoutes } from '../src/modules/transactions/transactions.routes.ts';

/**
 * Registers the shared customer and transaction routes on a test server when the app does not
 * serve them yet (their module registers them once every program type is implemented).
 */
export function withSharedCustomerRoutes(app: FastifyInstance): void {
  if (!app.hasRoute({ method: 'POST', url: '/v1/customers' })) void app.register(customersRoutes);
  if (!app.hasRoute({ method: 'POST', url: '/v1/transactions' })) void app.register(transactionsRoutes);
}
