import { Type } from 'typebox';

/** Wire shapes of `GET /v1/exports/{name}.csv` (issue 26, a Vouch extension of `/v1`). */

export const EXPORT_NAMES = ['partners', 'customers', 'transactions', 'commissions', 'subscribers'] as const;
export type ExportName = (typeof EXPORT_NAMES)[number];

const DateText = (description: string) =>
  Type.String({
    maxLength: 10,
    description: `${description} (YYYY-MM-DD, in the program time zone)`,
    examples: ['2026-01-01'],
  });

const range = {
  start: Type.Optional(DateText('Only rows created on or after this day')),
  end: Type.Optional(DateText('Only rows created on or before this day')),
};

const Ref = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 255, description }));

/** Each export's filters: its list's, plus the range. */
export const exportQueries = {
  partners: Type.Object({
    ...range,
    status: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('pending'), Type.Literal('archived')], {
        description: 'Default: every partner but archived ones, as the list',
      }),
    ),
  }),
  customers: Type.Object({
    ...range,
    partner: Ref('Only customers this partner referred (its id or key)'),
    referrer: Ref('Only customers this customer referred (its id or key; refer-a-friend)'),
  }),
  transactions: Type.Object({
    ...range,
    partner: Ref('Only sales of this partner (its id or key)'),
    customer: Ref('Only sales of this buyer (its id or key)'),
  }),
  commissions: Type.Object({
    ...range,
    partner: Ref('Only commissions of this partner (its id or key)'),
    status: Type.Optional(
      Type.Union([
        Type.Literal('pending'),
        Type.Literal('approved'),
        Type.Literal('paid'),
        Type.Literal('denied'),
        Type.Literal('voided'),
      ]),
    ),
    currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$' })),
  }),
  subscribers: Type.Object({
    ...range,
    refer_status: Type.Optional(Type.Union([Type.Literal('referred'), Type.Literal('non_referred')])),
  }),
};

/** Every filter any export takes, as the service reads them (each route validated its own). */
export interface ExportQuery {
  start?: string;
  end?: string;
  status?: string;
  partner?: string;
  referrer?: string;
  customer?: string;
  currency?: string;
  refer_status?: string;
}

/** The columns of each file, in order (its header row). */
export const exportColumns: Record<ExportName, string> = {
  partners: 'id, email, name, surname, status, key, created_at',
  customers: 'id, key, email, name, surname, partner, referrer, created_at',
  transactions: 'key, customer, partner, amount, currency, refunded_amount, product_id, created_at',
  commissions: 'id, partner, transaction, amount, currency, status, created_at',
  subscribers: 'id, email, name, status, code, referred, referrals_count, created_at',
};
