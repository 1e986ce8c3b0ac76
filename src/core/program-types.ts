/** A program's type is fixed at creation and decides its endpoints, shapes and rules. */
export const programTypes = ['affiliate', 'referral', 'newsletter'] as const;
export type ProgramType = (typeof programTypes)[number];

/** How `GET /v1/program` and error messages name each type. */
export const programTypeLabel = {
  affiliate: 'Affiliate',
  referral: 'Referral',
  newsletter: 'Newsletter',
} as const satisfies Record<ProgramType, string>;

export function isProgramType(value: unknown): value is ProgramType {
  return typeof value === 'string' && (programTypes as readonly string[]).includes(value);
}

export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${String(value)}`);
}
