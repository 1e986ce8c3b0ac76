import { fieldError } from '../core/errors.ts';

/**
 * Driver errors of both databases, translated in one place. Services ask "was this a unique
 * violation, and on which columns?" and answer with the field that was taken.
 */
export type DriverError = { kind: 'unique'; columns: string[] } | { kind: 'foreign_key' } | { kind: 'busy' };

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  detail?: unknown;
  constraint?: unknown;
}

export function translateDriverError(error: unknown): DriverError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, detail } = error as ErrorLike;
  if (typeof code !== 'string') return undefined;
  // SQLite: "UNIQUE constraint failed: partners.program_id, partners.email"
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    // An expression index names itself: "UNIQUE constraint failed: index 'partners_program_email_ci'".
    const index = /index '\w+_program_(\w+)_ci'/.exec(String(message))?.[1];
    if (index) return { kind: 'unique', columns: ['program_id', index] };
    const list = String(message).split(':')[1] ?? '';
    return { kind: 'unique', columns: list.split(',').map((c) => c.trim().split('.').pop() ?? '') };
  }
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return { kind: 'foreign_key' };
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return { kind: 'busy' };
  // PostgreSQL: detail "Key (program_id, email)=(1, a@b.c) already exists."
  if (code === '23505') {
    // "Key (program_id, lower(email))=…" for an expression index.
    const list = /^Key \(((?:[^()]|\([^()]*\))*)\)=/.exec(String(detail ?? ''))?.[1] ?? '';
    return {
      kind: 'unique',
      columns: list.split(',').map((c) =>
        c
          .trim()
          .replaceAll('"', '')
          .replace(/^lower\((\w+)\)$/, '$1'),
      ),
    };
  }
  if (code === '23503') return { kind: 'foreign_key' };
  if (code === '40001' || code === '40P01') return { kind: 'busy' };
  return undefined;
}

/** The business column a unique violation was about (the one after `program_id`), if any. */
export function uniqueViolationColumn(error: unknown): string | undefined {
  const translated = translateDriverError(error);
  if (translated?.kind !== 'unique') return undefined;
  return translated.columns.filter((column) => column !== 'program_id').pop();
}

/** The unique business columns of customers, partners and their links, as clients name them. */
const takenFields: Readonly<Record<string, string>> = { public_id: 'id', key: 'key', email: 'email' };

/**
 * A unique violation on `id`, `key` or `email` as a 422 on that field (`prefix` says where the
 * field sits in the body, e.g. `update.`); any other error as it was.
 */
export function takenFieldError(error: unknown, prefix = ''): unknown {
  const column = uniqueViolationColumn(error);
  const field = column === undefined ? undefined : takenFields[column];
  if (field === undefined) return error;
  return fieldError(`${prefix}${field}`, 'taken');
}

/**
 * A serialization failure or a deadlock (PostgreSQL): the statement was taken back whole, and the
 * same work may run again.
 */
export function isRetryable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as ErrorLike;
  return code === '40001' || code === '40P01';
}
