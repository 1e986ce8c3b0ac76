import type { ProgramType } from './program-types.ts';

/** Every event the modules record, by the program types that can produce it. */
export const eventsByProgramType = {
  affiliate: [
    'partner.created',
    'partner.updated',
    'partner.deleted',
    'partner.approved',
    'partner.rejected',
    'partner.archived',
    'customer.created',
    'customer.updated',
    'customer.deleted',
    'transaction.created',
    'transaction.deleted',
    'transaction.refunded',
    'lead.created',
    'lead.converted',
    'lead.rejected',
    'lead.deleted',
    'commission.created',
    'commission.approved',
    'commission.denied',
    'commission.voided',
    'commission.paid',
    'payout.created',
    'payout.paid',
    'fraud.flagged',
    'fraud.cleared',
    'fraud.confirmed',
  ],
  referral: [
    'customer.created',
    'customer.updated',
    'customer.deleted',
    'transaction.created',
    'transaction.deleted',
    'transaction.refunded',
    'fraud.flagged',
    'fraud.cleared',
    'fraud.confirmed',
  ],
  newsletter: ['subscriber.created', 'subscriber.updated', 'subscriber.deleted', 'subscriber.rewarded'],
} as const satisfies Record<ProgramType, readonly string[]>;

export type EventName = (typeof eventsByProgramType)[ProgramType][number];

export function programTypeProduces(type: ProgramType, event: string): event is EventName {
  return (eventsByProgramType[type] as readonly string[]).includes(event);
}
