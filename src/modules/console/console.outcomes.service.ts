import { AppError, type FieldProblem } from '../../core/errors.ts';
import { renderProblem } from '../../core/messages.ts';

/** How the newer pages read a service's answers: not found as undefined, refusals as page text. */

/** The read's answer, or undefined when the service answers 404 (another program's or no such id). */
export async function found<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return undefined;
    throw error;
  }
}

/** The field errors of a form, keyed by the field each problem names (the API's own words). */
export function problemsByField(
  problems: readonly FieldProblem[],
  keys: 'field' | 'path' = 'field',
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const problem of problems) {
    const field = keys === 'path' ? problem.field : (problem.field.split('.')[0] ?? problem.field);
    const said = renderProblem(problem);
    errors[field] = errors[field] ? `${errors[field]} ${said}` : said;
  }
  return errors;
}

export type Write<T = undefined> =
  | { kind: 'done'; value: T }
  | { kind: 'invalid'; errors: Record<string, string> };

/**
 * Runs a write of a service: a refusal (422, or 404 of something the form named) comes back as
 * the form's field errors, `fallback` naming the field of a refusal that names none; `keys: 'path'`
 * keys them by the whole path of the field (`program_settings.tier2_commission.value`).
 */
export async function refusedAsErrors<T>(
  write: () => Promise<T>,
  fallback: string,
  keys: 'field' | 'path' = 'field',
): Promise<Write<T>> {
  try {
    return { kind: 'done', value: await write() };
  } catch (error) {
    if (error instanceof AppError && (error.status === 422 || error.status === 409))
      return {
        kind: 'invalid',
        errors:
          error.problems.length > 0 ? problemsByField(error.problems, keys) : { [fallback]: error.message },
      };
    throw error;
  }
}
