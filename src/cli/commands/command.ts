import { parseArgs } from 'node:util';
import type { Deps } from '../../context.ts';

export interface Command {
  /** `programs create`, `migrate`, … */
  name: string;
  run(deps: Deps, args: string[]): Promise<unknown>;
}

/** Parses `--flag value` options strictly; an unknown flag is an error, not a silent no-op. */
export function options<const T extends Record<string, { type: 'string'; short?: string }>>(
  args: string[],
  spec: T,
) {
  return parseArgs({ args, options: spec, allowPositionals: true, strict: true });
}

export class UsageError extends Error {}

export function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`missing ${flag}`);
  return value;
}
