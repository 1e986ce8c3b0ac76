import type { Deps } from './context.ts';
import { settleDueCommissionsOfAllPrograms } from './modules/commissions/commissions.service.ts';
import { EmailSender } from './modules/emails/emails.sender.ts';
import { runStrandedRefundsOfAllPrograms } from './modules/integrations/integrations.sweep.service.ts';
import { queueDueNotices } from './modules/notices/notices.service.ts';
import { purgeExpiredPortalRecords } from './modules/portal/portal.cleanup.service.ts';
import { closeEndedWindowsOfAllPrograms } from './modules/subscribers/subscribers.service.ts';
import { type DeliveryOptions, WebhookDeliverer } from './modules/webhooks/webhooks.delivery.ts';
import type { DeliveryResult } from './modules/webhooks/webhooks.repository.ts';

export interface WorkerOptions extends DeliveryOptions {
  /** Deliveries in flight at once. */
  concurrency?: number;
  /** Pause when there is nothing to do; an idle worker notices new events within this time. */
  idleMs?: number;
  /** How often the e-mail outbox is looked at. */
  emailEveryMs?: number;
  /** How often commissions whose hold has ended are settled (affiliate programs that approve by themselves). */
  settleEveryMs?: number;
  /** How often expired portal sessions, one-time tokens and forgotten sign-in failures are deleted. */
  purgeEveryMs?: number;
  /** How often new partners are welcomed and partners told of new commissions (by e-mail). */
  noticeEveryMs?: number;
  /** How often newsletter referrals whose `referral_pending_days` window has ended are counted. */
  windowsEveryMs?: number;
  /** How often processor refunds left waiting for a sale that has arrived are run. */
  refundsEveryMs?: number;
}

export interface Worker {
  /**
   * One full pass (tests, `vouch worker --once`): fan out, close ended referral windows, queue
   * notices, send what is due, wait, record, settle, purge, run stranded processor refunds.
   */
  runOnce(): Promise<{
    dispatched: number;
    attempted: number;
    windows: number;
    notices: number;
    emails: number;
    settled: number;
    purged: number;
    refunds: number;
  }>;
  stop(): Promise<void>;
}

/** Builds the worker without starting its loop. */
export function createWorker(deps: Deps, options: WorkerOptions = {}) {
  const webhooks = new WebhookDeliverer(deps, options);
  const emails = new EmailSender(deps);
  return {
    webhooks,
    emails,
    async runOnce() {
      // Windows first: the milestone e-mails and events they cause leave in this same pass.
      const windows = await closeEndedWindowsOfAllPrograms(deps);
      const { dispatched, attempted } = await webhooks.runOnce();
      const notices = await queueDueNotices(deps);
      const sent = await emails.runOnce();
      const settled = await settleDueCommissionsOfAllPrograms(deps);
      const purged = await purgeExpiredPortalRecords(deps);
      const refunds = await runStrandedRefundsOfAllPrograms(deps);
      return { dispatched, attempted, windows, notices, emails: sent, settled, purged, refunds };
    },
    /** Ended newsletter referral windows closed (subscribers service); how many. */
    windows: () => closeEndedWindowsOfAllPrograms(deps),
    /** Welcome and new-commission e-mails queued (notices service); how many. */
    notices: () => queueDueNotices(deps),
    /** Due commissions settled in bounded batches (commissions service); how many moved. */
    settle: () => settleDueCommissionsOfAllPrograms(deps),
    /** Expired portal records deleted in bounded batches (portal cleanup service); how many went. */
    purge: () => purgeExpiredPortalRecords(deps),
    /** Processor refunds left waiting for a sale that is stored now, run (integrations); how many. */
    refunds: () => runStrandedRefundsOfAllPrograms(deps),
    close() {
      webhooks.close();
      emails.close();
    },
  };
}

/**
 * The delivery loop (webhooks and e-mails), beside the API (main.ts) or alone (`vouch worker`).
 * Deliveries are sent concurrently: a slow receiver holds one slot for at most its timeout, not
 * the loop. Results are written in batches. Several workers may run against one PostgreSQL
 * (claims skip each other's rows); SQLite runs one.
 */
export async function startWorker(deps: Deps, options: WorkerOptions = {}): Promise<Worker> {
  const worker = createWorker(deps, options);
  const concurrency = options.concurrency ?? 128;
  const idleMs = options.idleMs ?? 100;
  const emailEveryMs = options.emailEveryMs ?? 1000;
  const settleEveryMs = options.settleEveryMs ?? 60_000;
  const purgeEveryMs = options.purgeEveryMs ?? 10 * 60_000;
  const noticeEveryMs = options.noticeEveryMs ?? 30_000;
  const windowsEveryMs = options.windowsEveryMs ?? 60_000;
  const refundsEveryMs = options.refundsEveryMs ?? 60_000;
  const log = deps.log.child({ component: 'worker' });
  // The schedule reads the injected clock like everything else; only the idle pause is a timer.
  const nowMs = () => deps.clock.nowMicros() / 1000;

  let running = true;
  let inFlight = 0;
  let finished: DeliveryResult[] = [];
  let wake: (() => void) | undefined;
  const nudge = () => {
    wake?.();
    wake = undefined;
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  let lastEmails = 0;
  let lastSettle = 0;
  let lastPurge = 0;
  let lastNotices = 0;
  let lastWindows = 0;
  let lastRefunds = 0;
  let lastDispatch = 0;
  let dispatching = true;
  const refillAt = Math.max(1, Math.floor(concurrency / 2));

  // Work is batched: results are written, and new deliveries claimed, when half the slots are
  // free (or all are), not after every answer; SQLite then writes a few large transactions
  // instead of one per delivery. An idle worker polls every `idleMs`.
  const loop = async () => {
    while (running || inFlight > 0 || finished.length > 0) {
      let progressed = false;
      try {
        if (finished.length > 0) {
          const batch = finished;
          finished = [];
          await worker.webhooks.record(batch);
        }
        if (running) {
          if (dispatching || nowMs() - lastDispatch >= idleMs) {
            lastDispatch = nowMs();
            dispatching = (await worker.webhooks.dispatchEvents()) > 0;
            progressed = dispatching;
          }
          if (inFlight <= refillAt) {
            // Slots fill up here; the loop then sleeps until answers free half of them.
            const claimed = await worker.webhooks.claimDue(concurrency - inFlight);
            for (const { delivery, webhook } of claimed) {
              inFlight++;
              void worker.webhooks
                .attempt(delivery, webhook)
                .then((result) => finished.push(result))
                .catch((error: unknown) =>
                  log.error({ err: error, delivery: delivery.id }, 'delivery failed'),
                )
                .finally(() => {
                  inFlight--;
                  if (inFlight === refillAt || inFlight === 0) nudge();
                });
            }
          }
          if (nowMs() - lastWindows >= windowsEveryMs) {
            lastWindows = nowMs();
            progressed = (await worker.windows()) > 0 || progressed;
          }
          if (nowMs() - lastNotices >= noticeEveryMs) {
            lastNotices = nowMs();
            progressed = (await worker.notices()) > 0 || progressed;
          }
          if (nowMs() - lastEmails >= emailEveryMs) {
            lastEmails = nowMs();
            progressed = (await worker.emails.runOnce()) > 0 || progressed;
          }
          // Reads show a due commission as approved already; this brings the stored status (and
          // the partner's figures) along without waiting for a read that settles.
          if (nowMs() - lastSettle >= settleEveryMs) {
            lastSettle = nowMs();
            progressed = (await worker.settle()) > 0 || progressed;
          }
          if (nowMs() - lastPurge >= purgeEveryMs) {
            lastPurge = nowMs();
            progressed = (await worker.purge()) > 0 || progressed;
          }
          if (nowMs() - lastRefunds >= refundsEveryMs) {
            lastRefunds = nowMs();
            progressed = (await worker.refunds()) > 0 || progressed;
          }
        }
      } catch (error) {
        log.error({ err: error }, 'worker pass failed');
        progressed = false;
      }
      if (!progressed) await pause(running ? idleMs : 20);
    }
  };
  const done = loop();
  log.info('delivery worker started');

  return {
    runOnce: () => worker.runOnce(),
    async stop() {
      running = false;
      nudge();
      // In-flight requests end within their timeout; their results are recorded before we return.
      await done;
      worker.close();
    },
  };
}
