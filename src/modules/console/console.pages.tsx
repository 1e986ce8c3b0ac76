import type { FastifyInstance } from 'fastify';
import { definePages } from '../../pages/plugin.tsx';
import { consoleAccountRoutes } from './console.account.pages.tsx';
import { consoleActivityRoutes } from './console.activity.pages.tsx';
import { consoleCouponRoutes } from './console.coupons.pages.tsx';
import { consoleFraudRoutes } from './console.fraud.pages.tsx';
import { consoleKeyRoutes } from './console.keys.pages.tsx';
import { consoleLeadRoutes } from './console.leads.pages.tsx';
import { consolePartnerRoutes } from './console.partner.pages.tsx';
import { consolePayoutRoutes } from './console.payouts.pages.tsx';
import { consoleProgramRoutes } from './console.program.pages.tsx';
import { CONSOLE_PATH } from './console.requests.pages.tsx';
import { consoleReviewRoutes } from './console.review.pages.tsx';
import { consoleRuleRoutes } from './console.rules.pages.tsx';
import { consoleSalesRoutes } from './console.sales.pages.tsx';
import { consoleSettingsRoutes } from './console.settings.pages.tsx';
import { consoleSubscriberRoutes } from './console.subscribers.pages.tsx';
import { consoleTeamRoutes } from './console.team.pages.tsx';
import { consoleWebhookRoutes } from './console.webhooks.pages.tsx';

/**
 * The owner console, `/admin/…`: the pages a program's owner and team run their programs in. Every
 * page calls the same services as `/v1`, in the context of a program the signed-in user is on the
 * team of; every form carries a CSRF token and works without script.
 */
async function consoleRoutes(app: FastifyInstance) {
  await consoleAccountRoutes(app);
  await consoleProgramRoutes(app);
  await consoleReviewRoutes(app);
  await consoleTeamRoutes(app);
  await consolePartnerRoutes(app);
  await consoleSalesRoutes(app);
  await consoleLeadRoutes(app);
  await consoleCouponRoutes(app);
  await consoleSubscriberRoutes(app);
  await consoleRuleRoutes(app);
  await consolePayoutRoutes(app);
  await consoleKeyRoutes(app);
  await consoleSettingsRoutes(app);
  await consoleActivityRoutes(app);
  await consoleWebhookRoutes(app);
  await consoleFraudRoutes(app);
}

export const consolePages = definePages(CONSOLE_PATH, consoleRoutes);
