import { type Deps, keylessContext, type ProgramContext } from '../../context.ts';
import type { ConsoleRole } from '../../core/console-roles.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { nowTimestamp } from '../../core/time.ts';
import { type Changes, recordActivity } from '../activity/activity.service.ts';
import {
  createProgram,
  getProgramOrThrow,
  listPrograms,
  readProgramByPublicId,
} from '../program/program.service.ts';
import type { ConsoleUser } from './console.accounts.service.ts';
import * as repository from './console.repository.ts';

/** Which programs a console user runs, and the program context its pages act in. */

/** What the pages say of roles and program types. */
export {
  type ConsoleRole,
  consoleRoles,
  mayManageTeam,
  mayWrite,
  roleLabel,
} from '../../core/console-roles.ts';
export { isProgramType, type ProgramType, programTypeLabel } from '../../core/program-types.ts';

export interface ConsoleProgramEntry {
  publicId: string;
  name: string;
  type: ProgramType;
  role: ConsoleRole;
}

/** How many programs the programs page lists (an operator's, oldest first). */
export const PROGRAMS_SHOWN = 200;

export async function programsOf(deps: Deps, user: ConsoleUser): Promise<ConsoleProgramEntry[]> {
  if (user.operator) {
    const rows = await listPrograms(deps, { page: 1, limit: PROGRAMS_SHOWN, sort: 'asc' });
    return rows.slice(0, PROGRAMS_SHOWN).map((row) => ({
      publicId: row.public_id,
      name: row.name,
      type: row.type,
      role: 'owner',
    }));
  }
  const memberships = await repository.membershipsOf(deps.database.db, user.id);
  const entries: ConsoleProgramEntry[] = [];
  for (const membership of memberships) {
    const row = await getProgramOrThrow(deps, String(membership.program_id));
    entries.push({ publicId: row.public_id, name: row.name, type: row.type, role: membership.role });
  }
  return entries;
}

export interface ConsoleProgram {
  ctx: ProgramContext;
  role: ConsoleRole;
  /** Who acts on the page, and from where: what the activity log records of each write. */
  actor: { email: string; address: string };
  publicId: string;
  name: string;
  type: ProgramType;
  website: string | null;
  /** Where its pages are: `/admin/programs/{public id}`. */
  base: string;
}

/**
 * The program of a console URL as the signed-in user may see it, or undefined: a program the user
 * is not a member of answers exactly as one that does not exist. Pages act in its context with
 * the same services as `/v1`, as a full-scope key would.
 */
export async function consoleProgram(
  deps: Deps,
  user: ConsoleUser,
  publicId: string,
  address: string,
): Promise<ConsoleProgram | undefined> {
  if (publicId.length > 64) return undefined;
  const row = await readProgramByPublicId(deps.database.db, publicId);
  if (!row) return undefined;
  const id = Number(row.id);
  const role = user.operator ? 'owner' : await repository.findRole(deps.database.db, id, user.id);
  if (!role) return undefined;
  return {
    ctx: keylessContext(deps, { id, public_id: row.public_id, type: row.type }),
    role,
    actor: { email: user.email, address },
    publicId: row.public_id,
    name: row.name,
    type: row.type,
    website: row.website,
    base: `/admin/programs/${row.public_id}`,
  };
}

/** A new program from the console, owned by the user who made it; only operators make programs. */
export async function createConsoleProgram(
  deps: Deps,
  user: ConsoleUser,
  input: { name: string; type: ProgramType; website?: string },
  address: string,
) {
  if (!user.operator) return undefined;
  const program = await createProgram(deps, input);
  const ctx = keylessContext(deps, program);
  await recordActivity(ctx, [
    {
      actor: { kind: 'user', name: user.email },
      action: 'program.create',
      subject: program.public_id,
      changes: { name: { before: null, after: program.name }, type: { before: null, after: program.type } },
      address,
    },
  ]);
  await repository.putMember(deps.database.db, {
    programId: program.id,
    userId: user.id,
    role: 'owner',
    now: nowTimestamp(deps.clock),
  });
  return program;
}

/** Adds a user to a program's team with a role (the CLI's `users create --program`). */
export async function addMember(deps: Deps, programPublicId: string, userId: number, role: ConsoleRole) {
  const row = await readProgramByPublicId(deps.database.db, programPublicId);
  if (!row) return false;
  await repository.putMember(deps.database.db, {
    programId: Number(row.id),
    userId,
    role,
    now: nowTimestamp(deps.clock),
  });
  return true;
}

/** Records a console write in the program's activity log (after it succeeded). */
export function logActivity(
  program: ConsoleProgram,
  action: string,
  details: { subject?: string; changes?: Changes } = {},
) {
  return recordActivity(program.ctx, [
    {
      actor: { kind: 'user', name: program.actor.email },
      action,
      subject: details.subject,
      changes: details.changes,
      address: program.actor.address,
    },
  ]);
}
