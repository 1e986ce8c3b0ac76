import type { Deps } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { ProgramsTable } from '../../db/tables.ts';
import { type PageRequest, pageWindow } from '../../http/pagination.ts';
import { createApiKey } from '../api-keys/api-keys.service.ts';
import * as repository from './programs.repository.ts';

type ProgramRow = Omit<ProgramsTable, 'id'> & { id: number };

/** How the admin API and the CLI show a program. */
export function toAdminProgram(row: ProgramRow) {
  return {
    id: row.id,
    public_id: row.public_id,
    name: row.name,
    type: row.type,
    website: row.website,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function createProgram(
  deps: Deps,
  input: { name: string; type: ProgramType; website?: string },
) {
  const now = nowTimestamp(deps.clock);
  const row = await repository.insertProgram(deps.database.db, {
    public_id: newKey(),
    name: input.name,
    type: input.type,
    website: input.website ?? null,
    settings: '{}',
    portal_settings: '{}',
    created_at: now,
    updated_at: now,
  });
  return toAdminProgram(row);
}

/** A program with a fresh full-scope key: what `vouch programs create` prints. */
export async function createProgramWithKey(
  deps: Deps,
  input: { name: string; type: ProgramType; website?: string },
) {
  const program = await createProgram(deps, input);
  const apiKey = await createApiKey(deps, program.id, { name: 'default' });
  return { program, api_key: apiKey };
}

export async function getProgramOrThrow(deps: Deps, id: string) {
  const row = await repository.findProgramByIdOrPublicId(deps.database.db, id);
  if (!row) throw new AppError('not_found', 'Program not found.');
  return toAdminProgram(row);
}

export async function listPrograms(deps: Deps, page: PageRequest) {
  const rows = await repository.listPrograms(deps.database.db, pageWindow(page), page.sort);
  return rows.map(toAdminProgram);
}
