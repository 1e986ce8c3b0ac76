import { foundation } from './0001-foundation.ts';
import { referralDomain } from './0002-referral-domain.ts';
import { affiliate } from './0003-affiliate.ts';
import { webhooks } from './0004-webhooks.ts';
import { referral } from './0005-referral.ts';
import { programCountersByDay } from './0006-program-counters-by-day.ts';
import { creationOrder } from './0008-creation-order.ts';
import { transactionListOrder } from './0009-transaction-list-order.ts';
import { splitCounters } from './0010-split-counters.ts';
import { hardening } from './0011-hardening.ts';
import { leads } from './0012-leads.ts';
import { coupons } from './0013-coupons.ts';
import { newsletter } from './0014-newsletter.ts';
import { clickTracking } from './0015-click-tracking.ts';
import { commissionsPayouts } from './0016-commissions-payouts.ts';
import { portal } from './0017-portal.ts';
import { counterSlots } from './0018-counter-slots.ts';
import { payoutSpeed } from './0019-payout-speed.ts';
import { replayableCodes } from './0020-replayable-codes.ts';
import { payoutExport } from './0021-payout-export.ts';
import { portalHost } from './0022-portal-host.ts';
import { saleVersions } from './0023-sale-versions.ts';
import { unusedRewardIndex } from './0024-unused-reward-index.ts';
import { portalExpiry } from './0025-portal-expiry.ts';
import { saleWriteChecks } from './0026-sale-write-checks.ts';
import { noticeCursors } from './0027-notice-cursors.ts';
import { billingIntegrations } from './0028-billing-integrations.ts';
import { ownerConsole } from './0030-console.ts';
import { activity } from './0031-activity.ts';
import { fraud } from './0032-fraud.ts';
import { consoleResets } from './0033-console-resets.ts';
import { reportCounters } from './0034-report-counters.ts';
import { clicks } from './0035-clicks.ts';
import { programLogos } from './0036-program-logos.ts';
import { billingEventStorage } from './0038-billing-event-storage.ts';
import { pendingPartners } from './0039-pending-partners.ts';
import { reportTotals } from './0040-report-totals.ts';
import { portalSightings } from './0041-portal-sightings.ts';
import { activityByTime } from './0042-activity-by-time.ts';
import { saleCustomerKeys } from './0043-sale-customer-keys.ts';
import type { VouchMigration } from './helpers.ts';

/**
 * Every migration, in order. Names sort lexically; add new ones at the end with the next number.
 * In code rather than files so that ESM and the compiled build need no directory scanning.
 */
export const migrations: Record<string, VouchMigration> = {
  '0001_foundation': foundation,
  '0002_referral_domain': referralDomain,
  '0003_affiliate': affiliate,
  '0004_webhooks': webhooks,
  '0005_referral': referral,
  '0006_program_counters_by_day': programCountersByDay,
  '0008_creation_order': creationOrder,
  '0009_transaction_list_order': transactionListOrder,
  '0010_split_counters': splitCounters,
  '0011_hardening': hardening,
  '0012_leads': leads,
  '0013_coupons': coupons,
  '0014_newsletter': newsletter,
  '0015_click_tracking': clickTracking,
  '0016_commissions_payouts': commissionsPayouts,
  '0017_portal': portal,
  '0018_counter_slots': counterSlots,
  '0019_payout_speed': payoutSpeed,
  '0020_replayable_codes': replayableCodes,
  '0021_payout_export': payoutExport,
  '0022_portal_host': portalHost,
  '0023_sale_versions': saleVersions,
  '0024_unused_reward_index': unusedRewardIndex,
  '0025_portal_expiry': portalExpiry,
  '0026_sale_write_checks': saleWriteChecks,
  '0027_notice_cursors': noticeCursors,
  '0028_billing_integrations': billingIntegrations,
  '0030_console': ownerConsole,
  '0031_activity': activity,
  '0032_fraud': fraud,
  '0033_console_resets': consoleResets,
  '0034_report_counters': reportCounters,
  '0035_clicks': clicks,
  '0036_program_logos': programLogos,
  '0038_billing_event_storage': billingEventStorage,
  '0039_pending_partners': pendingPartners,
  '0040_report_totals': reportTotals,
  '0041_portal_sightings': portalSightings,
  '0042_activity_by_time': activityByTime,
  '0043_sale_customer_keys': saleCustomerKeys,
};
