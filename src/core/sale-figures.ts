import { programMetrics, revenueMetric } from './program-stats.ts';

/**
 * What a sale does, decided before anything is written: who it concerns, the rewards it earns and
 * every figure it moves. Pure: the caller reads the settings and the buyer's history, then applies
 * the decision in one transaction. Archive, revoke-archive, delete and `vouch seed` move figures
 * through the same `…SaleFigures` functions, so no second copy of a counter rule exists.
 */

export interface SaleInput {
  amountMicros: bigint;
  /** The currency code the request sent, upper case; null when it sent none. */
  currency: string | null;
  rewardable: boolean;
  rewarded: boolean;
  productId: string | null;
  productType: string | null;
  /** When the sale is recorded (a timestamp). */
  at: string;
}

export type FigureOwnerKind = 'partner' | 'customer' | 'link';

/** One change to one per-entity figure (entity counters). */
export interface FigureChange {
  kind: FigureOwnerKind;
  id: number;
  metric: string;
  value: bigint;
}

/** One reward row as decided, in the sale's terms. */
export interface RewardDecision {
  partnerId: number | null;
  customerId: number | null;
  role: string;
  status: string;
  amountMicros: bigint;
  units: string;
  isCurrency: boolean;
  commissionType: string;
  commissionValue: string;
  availableAt: string | null;
  /** The open fraud flag holding it, and the due date it gets back when the flag is cleared. */
  fraudFlag?: string | null;
  heldAvailableAt?: string | null;
}

/** The figures a sale moves: the program's on the sale's day, and the entities'. */
export interface SaleFigures {
  /** Program figures (program counters) of the sale's day. */
  program: Record<string, bigint>;
  /** Entity figures, in a fixed order (kind, id, metric) so concurrent writers lock rows alike. */
  entities: FigureChange[];
}

export interface SaleDecision {
  customerId: number;
  partnerId: number | null;
  referringCustomerId: number | null;
  amountMicros: bigint;
  currency: string | null;
  rewards: RewardDecision[];
  figures: SaleFigures;
  /**
   * Whether a later sale of the buyer may decide differently because this one counted (its first
   * sale, or a commission limited to a number of sales not reached yet). A sale that does not
   * leaves the buyer's sale version as it was (migration 0023): a concurrent sale of the same
   * buyer, decided on the count before this one, stays right.
   */
  countsForLaterSales: boolean;
}

// Figures are built with this rather than object spreads: a sale builds a dozen of them, and a
// spread costs more than the rest of the decision on this kind of machine.
export const figure = (kind: FigureOwnerKind, id: number, metric: string, value: bigint): FigureChange => ({
  kind,
  id,
  metric,
  value,
});

/** The fixed order of figures: owner kind, owner id, metric. */
export function compareFigures(
  a: Pick<FigureChange, 'kind' | 'id' | 'metric'>,
  b: Pick<FigureChange, 'kind' | 'id' | 'metric'>,
): number {
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  if (a.id !== b.id) return a.id - b.id;
  return a.metric < b.metric ? -1 : a.metric > b.metric ? 1 : 0;
}

/**
 * Adds up changes to the same figure, drops zeros and sorts, so writers lock rows in one order.
 * A write moves about ten figures: a linear search beats hashing composite keys at that size.
 */
export function orderedFigures(changes: readonly FigureChange[]): FigureChange[] {
  const merged: FigureChange[] = [];
  for (const change of changes) {
    const same = merged.find(
      (f) => f.id === change.id && f.metric === change.metric && f.kind === change.kind,
    );
    if (same) same.value += change.value;
    else merged.push(figure(change.kind, change.id, change.metric, change.value));
  }
  return merged.filter((f) => f.value !== 0n).sort(compareFigures);
}

/**
 * Which figures a change moves: a whole sale (counts and amounts), or only amounts (a refund
 * takes money back but the sale still happened).
 */
export type FigureScope = 'sale' | 'amounts';

export function programFigures(
  sign: 1n | -1n,
  amountMicros: bigint,
  currency: string | null,
  scope: FigureScope = 'sale',
) {
  const program: Record<string, bigint> = scope === 'sale' ? { [programMetrics.sales]: sign } : {};
  if (currency !== null) program[revenueMetric(currency)] = sign * amountMicros;
  return program;
}

/** `1n` when a sale is added, `-1n` when it is taken back. */
export type Sign = 1n | -1n;

/** A paying account starts with its first counted sale and stops with its last. */
export function payingChange(sign: Sign, salesBefore: number): bigint {
  if (sign === 1n) return salesBefore === 0 ? 1n : 0n;
  return salesBefore === 1 ? -1n : 0n;
}
