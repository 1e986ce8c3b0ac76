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
export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fields: FieldErrors;

  constructor(code: ErrorCode, message: string, fields: FieldErrors = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = errorStatus[code];
    this.fields = fields;
  }
}

/**
 * Laravel's summary line: the first message, plus "(and N more errors)". `total` counts every
 * message when `fields` holds only the first of them (validation stops listing at a bound).
 */
export function summarizeFieldErrors(fields: FieldErrors, total?: number): string {
  const messages = Object.values(fields).flat();
  const first = messages[0] ?? 'The given data was invalid.';
  const more = Math.max(total ?? 0, messages.length) - 1;
  if (more <= 0) return first;
  return `${first} (and ${more} more ${more === 1 ? 'error' : 'errors'})`;
}

export function validationError(fields: FieldErrors, total?: number): AppError {
  return new AppError('validation_failed', summarizeFieldErrors(fields, total), fields);
}

export function fieldError(field: string, message: string): AppError {
  return validationError({ [field]: [message] });
}

export function notFound(what = 'Resource'): AppError {
  return new AppError('not_found', `${what} not found.`);
}
