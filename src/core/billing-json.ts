/**
 * Readers for processor payloads: JSON of a documented shape that may still lack a field or carry
 * another type than documented (an older API version, an expanded object). Each reader answers
 * the value when it has the expected type and undefined otherwise, so event rules never cast.
 */
export type JsonObject = { readonly [key: string]: unknown };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a path of object keys, or undefined when a step is missing or not an object. */
export function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

export function textAt(value: unknown, ...path: string[]): string | undefined {
  const found = at(value, ...path);
  return typeof found === 'string' && found !== '' ? found : undefined;
}

export function objectAt(value: unknown, ...path: string[]): JsonObject | undefined {
  const found = at(value, ...path);
  return isObject(found) ? found : undefined;
}

export function listAt(value: unknown, ...path: string[]): readonly unknown[] {
  const found = at(value, ...path);
  return Array.isArray(found) ? found : [];
}

/** An id that the processor sends either as a string or, when expanded, as an object with `id`. */
export function idAt(value: unknown, ...path: string[]): string | undefined {
  const found = at(value, ...path);
  if (typeof found === 'string' && found !== '') return found;
  return textAt(found, 'id');
}
