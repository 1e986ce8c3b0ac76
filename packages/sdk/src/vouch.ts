import createClient from 'openapi-fetch';
import type { paths } from './generated/openapi.ts';
import { leads, subscribers } from './resources/audience.ts';
import { coupons, promotionCodes } from './resources/coupons.ts';
import { customers } from './resources/customers.ts';
import { commissions, payouts } from './resources/earnings.ts';
import { partners } from './resources/partners.ts';
import { program, webhooks } from './resources/program.ts';
import { reports } from './resources/reports.ts';
import { transactions } from './resources/transactions.ts';
import type { RetryOptions } from './retry.ts';
import { type Api, Transport } from './transport.ts';

export interface VouchOptions {
  /** Where Vouch answers, e.g. `https://vouch.example.com` (no `/v1`). */
  baseUrl: string;
  /** A program's API key, `vk_…`. A read-scope key may only read. */
  apiKey: string;
  /** Retrying of reads and replayable creates; `{ retries: 0 }` turns it off. */
  retry?: RetryOptions;
  /** A fetch to call instead of the global one (a test double, a proxying fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every request, besides the key. */
  headers?: Record<string, string>;
}

/**
 * A client of one program's API: `new Vouch({ baseUrl, apiKey })`, then `vouch.partners.create(…)`,
 * `for await (const partner of vouch.partners.list())`. Every failure is a `VouchError`.
 */
export class Vouch {
  /** The typed client of every path, for operations the resource groups do not cover. */
  readonly api: Api;
  readonly program: ReturnType<typeof program>;
  readonly partners: ReturnType<typeof partners>;
  readonly customers: ReturnType<typeof customers>;
  readonly transactions: ReturnType<typeof transactions>;
  readonly commissions: ReturnType<typeof commissions>;
  readonly payouts: ReturnType<typeof payouts>;
  readonly webhooks: ReturnType<typeof webhooks>;
  readonly subscribers: ReturnType<typeof subscribers>;
  readonly leads: ReturnType<typeof leads>;
  readonly coupons: ReturnType<typeof coupons>;
  readonly promotionCodes: ReturnType<typeof promotionCodes>;
  readonly reports: ReturnType<typeof reports>;

  constructor(options: VouchOptions) {
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { ...options.headers, authorization: `Bearer ${options.apiKey}` },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const transport = new Transport(this.api, options.retry ?? {});
    this.program = program(transport);
    this.partners = partners(transport);
    this.customers = customers(transport);
    this.transactions = transactions(transport);
    this.commissions = commissions(transport);
    this.payouts = payouts(transport);
    this.webhooks = webhooks(transport);
    this.subscribers = subscribers(transport);
    this.leads = leads(transport);
    this.coupons = coupons(transport);
    this.promotionCodes = promotionCodes(transport);
    this.reports = reports(transport);
  }
}
