import type { FieldProblem, ProblemOf, Rule, RuleParams } from './messages.ts';

/** Every error the API answers with has a code from this table; the HTTP status follows from it. */
export const errorStatus = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;
export type { FieldProblem } from './messages.ts';

/**
 * An error the API answers with. A 422 carries its field problems structured (field, rule,
 * parameters); they are worded once, at the edge (`renderFieldErrors` in core/messages.ts).
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly problems: readonly FieldProblem[];
  /** How many problems there were; more than `problems` holds when listing stopped at a bound. */
  readonly total: number;

  constructor(code: ErrorCode, message: string, problems: readonly FieldProblem[] = [], total?: number) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = errorStatus[code];
    this.problems = problems;
    this.total = Math.max(total ?? 0, problems.length);
  }

  /** The first problem with `field`, if any. */
  problemOn(field: string): FieldProblem | undefined {
    return this.problems.find((problem) => problem.field === field);
  }
}

/** One problem: `problem('amount', 'max', 100)`; the parameters are typed by the rule. */
export function problem<R extends Rule>(field: string, rule: R, ...params: RuleParams<R>): ProblemOf<R> {
  return { field, rule, params };
}

export function validationError(problems: readonly FieldProblem[], total?: number): AppError {
  return new AppError('validation_failed', 'The given data was invalid.', problems, total);
}

/** A 422 on one field: `fieldError('code', 'taken')`, `fieldError('limit', 'between', 10, 100)`. */
export function fieldError<R extends Rule>(field: string, rule: R, ...params: RuleParams<R>): AppError {
  // Each `ProblemOf<R>` is a member of the `FieldProblem` union; TypeScript cannot see it for a generic `R`.
  return validationError([problem(field, rule, ...params) as FieldProblem]);
}

/**
 * The same 422 with its fields moved under `prefix` (`transactions.2.`), except those `stays`
 * keeps (fields of a shared part of the body); any other error unchanged.
 */
export function underPath<E>(
  error: E,
  prefix: string,
  stays: (field: string) => boolean = () => false,
): E | AppError {
  if (!(error instanceof AppError) || error.code !== 'validation_failed') return error;
  return validationError(
    error.problems.map((p) => (stays(p.field) ? p : { ...p, field: `${prefix}${p.field}` })),
    error.total,
  );
}

export function notFound(what = 'Resource'): AppError {
  return new AppError('not_found', `${what} not found.`);
}
