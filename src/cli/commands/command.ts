import { InvalidArgumentError } from '@commander-js/extra-typings';
import type { Deps } from '../../context.ts';

/**
 * Runs a command's work with the database open and migrated (`migrated`: the migrations this run
 * applied), prints its result as JSON and closes what it opened. Commands call it from their
 * action only, so `--help` touches no database.
 */
export type Run = (work: (deps: Deps, migrated: string[]) => Promise<object | undefined>) => Promise<void>;

/** A request the command cannot carry out as given: exit 64 with the command's usage. */
export class UsageError extends Error {}

/** Option parser for counts, ids and page numbers: digits only. */
export function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('Expected a whole number.');
  return Number(value);
}

/** Option parser for a site address. */
export function httpUrl(value: string): string {
  if (!/^https?:\/\/\S+$/.test(value)) throw new InvalidArgumentError('Expected an http(s) URL.');
  return value;
}

/**
 * A required option's value. Checked in the action rather than declared mandatory: the parser
 * checks mandatory options before unknown ones, and `--nam x` should be told it is unknown.
 */
export function required<T>(value: T | undefined, flags: string): T {
  if (value === undefined) throw new UsageError(`required option '${flags}' not specified`);
  return value;
}
