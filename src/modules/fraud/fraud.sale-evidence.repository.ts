/** What a sale's rules read before the sale, in one statement (PostgreSQL, `fraud.sale-evidence.ts`). */
import { sql } from 'kysely';
import { definePreparedQuery } from '../../db/prepared.ts';
import './fraud.tables.ts';

export interface SaleEvidenceRow {
  /** The program's settings (JSON text). */
  settings: string;
  /** The click `context.click_id` names: owner kind, owner id, when. */
  click: [string, number, string] | null;
  /** Portal sightings of the address or the click: kind, value, owner kind, owner id. */
  sightings: ['address' | 'click', string, string, number][];
}

export interface SaleEvidenceParams {
  programId: number;
  clickId: string;
  firstAddress: string;
  secondAddress: string;
  since: string;
}

/**
 * PostgreSQL, one round trip instead of three: the program's settings, the click and the
 * sightings, each by its unique index. The program's row is always there (the request's
 * program), so the statement answers one row. As the sale's own read (transactions.buyers), it
 * reads the program's and the click's rows where they are kept.
 */
export const selectSaleEvidence = definePreparedQuery<SaleEvidenceRow, SaleEvidenceParams>((db, param) =>
  db
    .selectFrom('programs as p')
    .where('p.id', '=', param('programId'))
    .select([
      'p.settings',
      sql<[string, number, string] | null>`(select json_build_array(c.owner_kind, c.owner_id,
          c.clicked_at) from clicks c where c.program_id = p.id
          and c.public_id = ${param('clickId')})`.as('click'),
      sql<['address' | 'click', string, string, number][]>`(select coalesce(json_agg(json_build_array(
          s.kind, s.value, s.owner_kind, s.owner_id)), '[]') from (select kind, value, owner_kind, owner_id
          from fraud_portal_sightings where program_id = p.id
          and (kind, value) in (('address', ${param('firstAddress')}), ('address', ${param('secondAddress')}),
            ('click', ${param('clickId')}))
          and last_seen_at >= ${param('since')} limit 50) s)`.as('sightings'),
    ]),
);
