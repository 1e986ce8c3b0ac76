import type { FastifyInstance } from 'fastify';
import { pageAssets } from '../pages/assets.ts';
import { activityRoutes } from './activity/activity.routes.ts';
import { adminRoutes } from './admin/admin.routes.ts';
import { commissionsRoutes } from './commissions/commissions.routes.ts';
import { consolePages } from './console/console.pages.tsx';
import { couponsRoutes } from './coupons/coupons.routes.ts';
import { customerBalanceRoutes } from './customers/customers.balance.routes.ts';
import { customerReferralLinksRoutes } from './customers/customers.links.routes.ts';
import { referralCustomersRoutes } from './customers/customers.referrer.routes.ts';
import { customersRoutes } from './customers/customers.routes.ts';
import { fraudRoutes } from './fraud/fraud.routes.ts';
import { processorEventRoutes } from './integrations/integrations.receive.routes.ts';
import { integrationsRoutes } from './integrations/integrations.routes.ts';
import { leadsRoutes } from './leads/leads.routes.ts';
import { partnerReferralLinksRoutes } from './partners/partners.links.routes.ts';
import { partnersRoutes } from './partners/partners.routes.ts';
import { payoutsRoutes } from './payouts/payouts.routes.ts';
import { customerPortalPages } from './portal/customer-portal.pages.tsx';
import { hostPortalPages, partnerPortalPages } from './portal/portal.pages.tsx';
import { programLogoRoutes } from './program/program.logo.routes.ts';
import { programRoutes } from './program/program.routes.ts';
import { promotionCodesRoutes } from './promotion-codes/promotion-codes.routes.ts';
import { exportsRoutes } from './reports/reports.exports.routes.ts';
import { reportsRoutes } from './reports/reports.routes.ts';
import { rewardsRoutes } from './rewards/rewards.routes.ts';
import { portalPages, sharePages } from './subscribers/subscribers.pages.tsx';
import { subscribersRoutes } from './subscribers/subscribers.routes.ts';
import { systemRoutes } from './system/system.routes.ts';
import { trackingRoutes } from './tracking/tracking.routes.ts';
import { transactionsRoutes } from './transactions/transactions.routes.ts';
import { webhookRoutes } from './webhooks/webhooks.routes.ts';

/** Every route plugin, in URL order. */
export const routePlugins: ((app: FastifyInstance) => Promise<void>)[] = [
  systemRoutes,
  // First: its hook notes the writes of every route registered after it.
  activityRoutes,
  adminRoutes,
  consolePages,
  programRoutes,
  programLogoRoutes,
  partnersRoutes,
  partnerReferralLinksRoutes,
  customersRoutes,
  customerReferralLinksRoutes,
  referralCustomersRoutes,
  customerBalanceRoutes,
  transactionsRoutes,
  leadsRoutes,
  subscribersRoutes,
  rewardsRoutes,
  couponsRoutes,
  promotionCodesRoutes,
  commissionsRoutes,
  payoutsRoutes,
  fraudRoutes,
  reportsRoutes,
  exportsRoutes,
  webhookRoutes,
  integrationsRoutes,
  processorEventRoutes,
  pageAssets,
  sharePages,
  portalPages,
  partnerPortalPages,
  customerPortalPages,
  trackingRoutes,
  // Last: `/`, `/sign-in`, `/dashboard`… answer only on a program's own portal host.
  hostPortalPages,
];
