import type { FraudFlagRow } from './fraud.repository.ts';

/** What the wire shows of a flag: its public names only, the evidence as the rule kept it. */
export function toFraudFlag(row: FraudFlagRow) {
  return {
    id: row.public_id,
    rule: row.rule,
    status: row.status,
    subject: { type: row.subject_kind, id: row.subject_ref },
    owner: { type: row.owner_kind === 'partner' ? 'partner' : 'referrer', id: row.owner_ref },
    evidence: JSON.parse(row.evidence) as Record<string, unknown>,
    created_at: row.created_at,
    updated_at: row.updated_at,
    resolved_at: row.resolved_at,
  };
}
