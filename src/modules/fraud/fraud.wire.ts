import type { FraudFlagRow } from './fraud.repository.ts';
import type { FraudFlag } from './fraud.schemas.ts';

/** What the wire shows of a flag: its public names only, the evidence as the rule kept it. */
export function toFraudFlag(row: FraudFlagRow): FraudFlag {
  return {
    id: row.public_id,
    // Written only by openFlags and the review, from the same lists the schema names.
    rule: row.rule as FraudFlag['rule'],
    status: row.status as FraudFlag['status'],
    subject: { type: row.subject_kind, id: row.subject_ref },
    owner: { type: row.owner_kind === 'partner' ? 'partner' : 'referrer', id: row.owner_ref },
    evidence: JSON.parse(row.evidence) as Record<string, unknown>,
    created_at: row.created_at,
    updated_at: row.updated_at,
    resolved_at: row.resolved_at,
  };
}
