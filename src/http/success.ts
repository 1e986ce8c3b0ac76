/** The answer `{data, status: 1}` of a value of one of several shapes, kept apart per shape. */
export type Success<T> = T extends unknown ? { data: T; status: 1 } : never;

/**
 * Wraps a route's value in its answer. A value of a union type (one shape per program type)
 * answers the union of the wrapped shapes, as a route with variants declares its 200.
 */
export function success<T>(data: T): Success<T> {
  // Distributes over T's members; for one value it is exactly `{data, status: 1}`.
  return { data, status: 1 } as Success<T>;
}
