import { type Kysely, sql } from 'kysely';
import { exportRows } from '../../db/export-pages.ts';
import { definePreparedListQuery } from '../../db/prepared.ts';
import { type OwnerLabel, programScope } from '../../db/report-reads.ts';
import type { DB } from '../../db/tables.ts';

/** Read-only report queries of partners (issue 26): their labels in rankings, the export. */

const selectPartnerLabels = definePreparedListQuery<OwnerLabel, { programId: number }, number>(
  (db, param, ids) =>
    db
      .selectFrom('partners')
      .leftJoin('referral_links', (join) =>
        join
          .onRef('referral_links.partner_id', '=', 'partners.id')
          .on('referral_links.program_id', '=', param('programId'))
          .on('referral_links.is_default', '=', sql<boolean>`${sql.lit(true)}`),
      )
      .select([
        'partners.id as owner_id',
        'partners.public_id as id',
        'referral_links.key as key',
        sql<string | null>`trim(coalesce(partners.name, '') || ' ' || coalesce(partners.surname, ''))`.as(
          'name',
        ),
      ])
      .where(programScope('partners.program_id'), '=', param('programId'))
      .where('partners.id', 'in', ids),
);

/** The id, key (the default link's) and name a ranking of partners shows for each partner id. */
export async function partnerLabels(
  db: Kysely<DB>,
  programId: number,
  ids: readonly number[],
): Promise<OwnerLabel[]> {
  return selectPartnerLabels(db, { programId }, ids);
}

export const partnerRows = exportRows('partners', (db, programId, filter: { status?: string }) => {
  let query = db
    .selectFrom('partners')
    .leftJoin('referral_links', (join) =>
      join
        .onRef('referral_links.partner_id', '=', 'partners.id')
        .on('referral_links.program_id', '=', programId)
        .on('referral_links.is_default', '=', sql<boolean>`${sql.lit(true)}`),
    )
    .select([
      'partners.id',
      'partners.created_at',
      'partners.public_id',
      'partners.email',
      'partners.name',
      'partners.surname',
      'partners.status',
      'referral_links.key',
    ])
    .where('partners.program_id', '=', programId);
  query =
    filter.status === undefined
      ? query.where('partners.status', '<>', 'archived')
      : query.where('partners.status', '=', filter.status);
  return query;
});
