/**
 * The body of every Vouch error answer (docs/api-behaviour.md, errors): what this client reads
 * of it, whatever the document names the shape.
 */
export interface ErrorBody {
  message: string;
  errors?: Record<string, string[]>;
}

/**
 * Every failure of a call: an error answer of the API (`status` is its HTTP status) or a request
 * that got no answer at all (`status` 0, the network error in `cause`).
 */
export class VouchError extends Error {
  override readonly name = 'VouchError';
  /** The HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** Messages by dotted field path (`program_settings.currency`); empty when no field is at fault. */
  readonly errors: Readonly<Record<string, string[]>>;
  /** The `x-request-id` of the answer: the server logs details of a 500 under it. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait (`Retry-After` of a 429 or 503). */
  readonly retryAfter: number | undefined;

  constructor(
    status: number,
    message: string,
    details: {
      errors?: Record<string, string[]>;
      requestId?: string;
      retryAfter?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = status;
    this.errors = details.errors ?? {};
    this.requestId = details.requestId;
    this.retryAfter = details.retryAfter;
  }

  /** The messages of one field, or none. */
  fieldErrors(field: string): string[] {
    return this.errors[field] ?? [];
  }
}

const isErrorBody = (value: unknown): value is ErrorBody =>
  typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';

/** Seconds from a `Retry-After` header: delta-seconds or an HTTP date. */
export function retryAfterSeconds(response: Response, now = Date.now()): number | undefined {
  const value = response.headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/** The error for an error answer, whatever its body (a proxy's HTML page included). */
export function errorFromAnswer(response: Response, body: unknown): VouchError {
  const details = {
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfter: retryAfterSeconds(response),
  };
  if (isErrorBody(body))
    return new VouchError(response.status, body.message, { ...details, errors: body.errors });
  const text = typeof body === 'string' && body.length > 0 ? `: ${body.slice(0, 200)}` : '';
  return new VouchError(response.status, `HTTP ${response.status}${text}`, details);
}
