import type { Deps } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { createProgramWithKey, getProgramOrThrow } from '../../modules/program/program.service.ts';
import { UsageError } from './command.ts';

type CreatedProgram = Awaited<ReturnType<typeof createProgramWithKey>>;

/** What a seed prints about its program: the new program with its key, or the id it was given. */
export type SeededProgram = CreatedProgram | { program: { id: number } };

/**
 * The program a seed fills: the one `--program` names, which must be of `type`, or a new one made
 * from `fresh` (its API key is printed once, as `programs create` does).
 */
export async function seedProgram(
  deps: Deps,
  type: ProgramType,
  programId: number | undefined,
  fresh: { name: string; website: string },
): Promise<{ id: number; shown: SeededProgram }> {
  if (programId === undefined) {
    const created = await createProgramWithKey(deps, { ...fresh, type });
    return { id: created.program.id, shown: created };
  }
  const program = await getProgramOrThrow(deps, String(programId)).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'not_found') return undefined;
    throw error;
  });
  if (program?.type !== type) throw new UsageError(`--program must name ${articled(type)} program`);
  return { id: program.id, shown: { program: { id: program.id } } };
}

const articled = (type: ProgramType) => (type === 'affiliate' ? `an ${type}` : `a ${type}`);
