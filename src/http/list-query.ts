import { type TProperties, Type } from 'typebox';

/** The spec's `limit` ranges and defaults per list (spec, Limits). */
export const listLimits = {
  standard: { minimum: 1, maximum: 250, default: 15 },
  domains: { minimum: 1, maximum: 250, default: 10 },
  subscribers: { minimum: 10, maximum: 250, default: 10 },
  webhooks: { minimum: 10, maximum: 100, default: 10 },
  customerTransactions: { minimum: 10, maximum: 100, default: 10 },
} as const;

export type ListKind = keyof typeof listLimits;

// Deep pages cost a scan of every skipped row; past this the answer would be slow and empty.
const MAX_PAGE = 1_000_000;

/** `limit`, `page` and `sort` of a list, plus its filters. */
const listProperties = (kind: ListKind) => ({
  limit: Type.Integer({ ...listLimits[kind], description: 'Items per page' }),
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
  sort: Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
    default: 'desc',
    description: 'Order by creation time',
  }),
});

/** A list's query string schema: pure TypeBox, so schemas files may import it. */
export const ListQuery = <P extends TProperties = Record<never, never>>(kind: ListKind, filters?: P) =>
  Type.Object({ ...listProperties(kind), ...filters } as ReturnType<typeof listProperties> & P);
