import type { BodyOf, QueryOf, Vouch } from '@vouch/sdk';
import type { ToolName } from './tool-operations.ts';

/**
 * Tool arguments as the model sent them. The API validates every field and answers a 422 naming
 * the field at fault, which comes back to the model as a tool error it can act on, so the
 * arguments are passed on as the operation's input without checking them twice.
 */
type Args = Record<string, unknown>;
const asInput = <T>(args: Args): T => args as T;

/** Splits the path parameter off the arguments; the rest are the query or the body. */
function pathParameter(args: Args, name: string): [string, Args] {
  const { [name]: value, ...rest } = args;
  if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`${name} is required`);
  return [String(value), rest];
}

export interface Tool {
  /** Written for a model: what the tool does, when to use it, what it answers. */
  description: string;
  run(vouch: Vouch, args: Args): Promise<unknown>;
}

export const tools: Record<ToolName, Tool> = {
  get_program: {
    description:
      "Read the Vouch program this API key belongs to: its name, type (affiliate, refer-a-friend or newsletter), settings such as the currency and commission rule, and the last 30 days' figures (customers, revenue, growth). Start here to learn what kind of program you are running.",
    run: (vouch) => vouch.program.get(),
  },
  list_partners: {
    description:
      'List the partners (affiliates) of the program, newest first, one page at a time (`page`, `limit` up to 250). Filter with `status`: active, pending (waiting for approval) or archived. The answer has `data` (the partners) and `meta`/`links`; ask for the next page while `links.next` is not null.',
    run: (vouch, args) => vouch.partners.list(asInput<QueryOf<'/v1/partners', 'get'>>(args)).page(),
  },
  get_partner: {
    description:
      'Read one partner by its id or by one of its referral link keys: name, e-mail, status, approval, tags, referral links, earnings figures and payout details.',
    run: (vouch, args) => vouch.partners.get(pathParameter(args, 'id')[0]),
  },
  create_partner: {
    description:
      'Create a partner (an affiliate) with a default referral link. Only `email` is required; give `name`, `surname`, `key` (the referral link key, generated when omitted) and `approved: true` to approve at once. A taken e-mail, id or key is refused with the field named.',
    run: (vouch, args) => vouch.partners.create(asInput<BodyOf<'/v1/partners', 'post'>>(args)),
  },
  approve_partner: {
    description:
      'Approve a partner by id or link key: a pending partner becomes active and starts earning commissions. Answers the partner as it is after approval.',
    run: async (vouch, args) => {
      const [id] = pathParameter(args, 'id');
      await vouch.partners.approve(id);
      return vouch.partners.get(id);
    },
  },
  record_sale: {
    description:
      'Record a sale (transaction) made by a customer, which credits the referring partner or customer with its reward. Name the customer by `customer.key` or `customer.email` (with `options.create_customer` to create a new buyer), and give `amount` (a decimal, up to 6 places, as a number or string) and `action` (e.g. "sale"). Give a unique `key` (your order id): the same sale sent again is answered with the stored one instead of counting twice.',
    run: (vouch, args) => vouch.transactions.create(asInput<BodyOf<'/v1/transactions', 'post'>>(args)),
  },
  refund_sale: {
    description:
      "Refund a recorded sale by its `key`, wholly or `amount` of it. Unpaid commissions on the sale shrink; paid ones get a clawback taken from the partner's next payout. Answers the sale as refunded.",
    run: (vouch, args) => {
      const [key, body] = pathParameter(args, 'key');
      return vouch.transactions.refund(key, asInput<BodyOf<'/v1/transactions/{key}/refund', 'post'>>(body));
    },
  },
  list_commissions: {
    description:
      'List the commissions partners earned, newest first, one page at a time. Filter by `status` (pending, approved, denied, paid, …), `partner`, `transaction` (a sale key), `currency` or a creation date range. Pending commissions need approval before they can be paid out.',
    run: (vouch, args) => vouch.commissions.list(asInput<QueryOf<'/v1/commissions', 'get'>>(args)).page(),
  },
  approve_commissions: {
    description:
      'Approve commissions by their integer `ids` (up to 500, from list_commissions), optionally with a `reason`. Approved commissions become payable once their hold period has passed. Answers the commissions as they are now.',
    run: (vouch, args) => vouch.commissions.approve(asInput<BodyOf<'/v1/commissions/approve', 'post'>>(args)),
  },
  create_payout: {
    description:
      "Gather the approved, payable commissions into a payout per partner (for one `partner` or every partner) in one `currency` (the program's by default). Answers the payout with its items and total; mark it paid once the money has been sent.",
    run: (vouch, args) => vouch.payouts.create(asInput<BodyOf<'/v1/payouts', 'post'>>(args)),
  },
  list_webhooks: {
    description:
      "List the program's webhooks (the URLs Vouch sends events to), with their `key`, URL, events and whether each is active. Use a webhook's key with list_webhook_deliveries.",
    run: (vouch, args) => vouch.webhooks.list(asInput<QueryOf<'/v1/webhooks', 'get'>>(args)).page(),
  },
  list_webhook_deliveries: {
    description:
      "List a webhook's delivery attempts by the webhook's `key`, newest first: the event, the HTTP status the receiver answered, errors and when the next retry is due. Use it to find out why a receiver is not getting events.",
    run: (vouch, args) => {
      const [key, query] = pathParameter(args, 'key');
      return vouch.webhooks
        .deliveries(key, asInput<QueryOf<'/v1/webhooks/{key}/deliveries', 'get'>>(query))
        .page();
    },
  },
  get_report: {
    description:
      'Figures over time for the program, one row per day, week or month: `metrics` is a comma list of clicks, signups, customers, paying_customers, sales, revenue, commissions, rewards or subscribers (whichever the program type has); `interval` is day, week or month; `start` and `end` are dates (default: the last 30 days). Money comes per currency. Narrow it to one partner, link or referrer with `partner`, `link` or `customer`.',
    run: (vouch, args) => vouch.reports.timeseries(asInput<QueryOf<'/v1/reports/timeseries', 'get'>>(args)),
  },
};
