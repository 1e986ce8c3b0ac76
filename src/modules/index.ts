import type { FastifyInstance } from 'fastify';
import { adminRoutes } from './admin/admin.routes.ts';
import { customerBalanceRoutes } from './customers/customers.balance.routes.ts';
import { customerReferralLinksRoutes } from './customers/customers.links.routes.ts';
import { referralCustomersRoutes } from './customers/customers.referrer.routes.ts';
import { customersRoutes } from './customers/customers.routes.ts';
import { partnerReferralLinksRoutes } from './partners/partners.links.routes.ts';
import { partnersRoutes } from './partners/partners.routes.ts';
import { programRoutes } from './program/program.routes.ts';
import { systemRoutes } from './system/system.routes.ts';
import { transactionsRoutes } from './transactions/transactions.routes.ts';
import { webhookRoutes } from './webhooks/webhooks.routes.ts';

/** Every route plugin, in URL order. */
export const routePlugins: ((app: FastifyInstance) => Promise<void>)[] = [
  systemRoutes,
  adminRoutes,
  programRoutes,
  partnersRoutes,
  partnerReferralLinksRoutes,
  customersRoutes,
  customerReferralLinksRoutes,
  referralCustomersRoutes,
  customerBalanceRoutes,
  transactionsRoutes,
  webhookRoutes,
];
