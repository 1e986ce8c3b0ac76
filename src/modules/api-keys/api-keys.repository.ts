import type { Kysely } from 'kysely';
import type { DB } from '../../db/tables.ts';

export async function insertApiKey(
  db: Kysely<DB>,
  values: {
    public_id: string;
    program_id: number;
    name: string;
    scope: 'full' | 'read';
    secret_digest: string;
    created_at: string;
  },
) {
  return db.insertInto('api_keys').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The key with its program's type; the token's public half is globally unique. */
export async function findActiveKeyByPublicId(db: Kysely<DB>, publicId: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('programs', 'programs.id', 'api_keys.program_id')
    .select([
      'api_keys.id',
      'api_keys.program_id',
      'api_keys.scope',
      'api_keys.secret_digest',
      'programs.public_id as program_public_id',
      'programs.type as program_type',
    ])
    .where('api_keys.public_id', '=', publicId)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function listApiKeys(db: Kysely<DB>, programId: number) {
  return db
    .selectFrom('api_keys')
    .select(['public_id', 'name', 'scope', 'created_at', 'revoked_at'])
    .where('program_id', '=', programId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function revokeApiKey(db: Kysely<DB>, publicId: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('public_id', '=', publicId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
