import { type FieldProblem, fieldError, problem, validationError } from '../core/errors.ts';
import { MAX_LISTED_MESSAGES } from './validation.ts';

/**
 * Bounds on what one request may make the server do, checked before any schema or recursive
 * walk sees the input, so that no body of up to 1 MiB can hold the event loop (issue 9).
 */

/** Deepest nesting of arrays and objects a JSON body may have (400 beyond it). */
export const MAX_JSON_DEPTH = 32;

/**
 * Longest array a body may hold anywhere, whatever its schema says: past it the request is
 * refused before validation (which reports one error per bad item). Body arrays document their
 * own, smaller `maxItems`; this bound also covers fields no schema describes.
 */
export const MAX_ARRAY_ITEMS = 1000;

/**
 * What one pass over a JSON text (no recursion, no parse) tells: whether it nests arrays and
 * objects deeper than MAX_JSON_DEPTH (`too-deep`), holds an array longer than MAX_ARRAY_ITEMS
 * (`too-many`: refused before the parse, which would build every item), or may hold what
 * assertAcceptableInput refuses, a NUL escape (`inspect`); otherwise `clean`, and the parsed value
 * needs no walk. A string's brackets and commas do not count.
 */
export function screenJsonText(text: string): 'too-deep' | 'too-many' | 'inspect' | 'clean' {
  let depth = 0;
  let inString = false;
  let inspect = false;
  // Per open level: elements seen so far when it is an array, -1 for an object.
  const counts: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) {
        if (text.startsWith('u0000', i + 1)) inspect = true;
        i++;
      } else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > MAX_JSON_DEPTH) return 'too-deep';
      counts[depth] = c === 91 ? 1 : -1;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
    else if (c === 44 /* , */ && countAfterComma(counts, depth) > MAX_ARRAY_ITEMS) return 'too-many';
  }
  return inspect ? 'inspect' : 'clean';
}

/** A comma at `depth`: one more element when the level is an array (its new count), else 0. */
function countAfterComma(counts: number[], depth: number): number {
  const count = counts[depth] ?? 0;
  if (count <= 0) return 0;
  counts[depth] = count + 1;
  return count + 1;
}

/**
 * The dotted path of the first array longer than MAX_ARRAY_ITEMS in a JSON text (`body` for the
 * text itself), read like screenJsonText with each level's current key or index.
 */
export function oversizedArrayPath(text: string): string {
  let depth = 0;
  let inString = false;
  let stringStart = 0;
  let lastString = '';
  const counts: number[] = [];
  const keys: string[] = [];
  const path = () => {
    const parts: string[] = [];
    for (let d = 1; d < depth; d++) {
      const count = counts[d] ?? 0;
      parts.push(count > 0 ? String(count - 1) : (keys[d] ?? ''));
    }
    return parts.join('.') || 'body';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) {
        inString = false;
        lastString = text.slice(stringStart, i + 1);
      }
    } else if (c === 34) {
      inString = true;
      stringStart = i;
    } else if (c === 58 /* : */ && (counts[depth] ?? 0) < 0) {
      try {
        keys[depth] = String(JSON.parse(lastString));
      } catch {
        keys[depth] = lastString;
      }
    } else if (c === 123 || c === 91) {
      depth++;
      counts[depth] = c === 91 ? 1 : -1;
    } else if (c === 125 || c === 93) depth--;
    else if (c === 44 && countAfterComma(counts, depth) > MAX_ARRAY_ITEMS) return path();
  }
  return 'body';
}

/** The 422 of an array over MAX_ARRAY_ITEMS at `path`, named with its schema's `maxItems` if any. */
export function tooManyItems(path: string, schema: Schema | undefined): Error {
  let current = schema;
  if (path !== 'body') {
    for (const segment of path.split('.')) {
      current = childSchema(current, /^\d+$/.test(segment) ? Number(segment) : segment);
    }
  }
  const limit = Math.min(maxItemsOf(current) ?? MAX_ARRAY_ITEMS, MAX_ARRAY_ITEMS);
  return fieldError(path, 'maxItems', limit);
}

type Schema = Record<string, unknown>;

function childSchema(schema: Schema | undefined, key: string | number): Schema | undefined {
  if (!schema) return undefined;
  if (typeof key === 'number') {
    if (typeof schema.items === 'object' && schema.items !== null) return schema.items as Schema;
  } else {
    const properties = schema.properties as Record<string, Schema> | undefined;
    if (properties?.[key]) return properties[key];
  }
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (!Array.isArray(branches)) return undefined;
  for (const branch of branches) {
    const found = childSchema(branch, key);
    if (found) return found;
  }
  return undefined;
}

function maxItemsOf(schema: Schema | undefined): number | undefined {
  if (!schema) return undefined;
  if (typeof schema.maxItems === 'number') return schema.maxItems;
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  return Array.isArray(branches) ? branches.map(maxItemsOf).find((n) => n !== undefined) : undefined;
}

const hasNul = (text: string) => text.includes('\u0000');

/**
 * What no schema may let through, found in one iterative walk of a parsed body or query:
 * - a NUL character in a string or a key (PostgreSQL cannot store one in text);
 * - an array longer than MAX_ARRAY_ITEMS (named with its schema's `maxItems` when it has one).
 * Throws the 422 of the first MAX_LISTED_MESSAGES problems, counting them all.
 */
export function assertAcceptableInput(value: unknown, schema: Schema | undefined): void {
  const problems: FieldProblem[] = [];
  let total = 0;
  const report = (found: FieldProblem) => {
    total++;
    if (total <= MAX_LISTED_MESSAGES) problems.push(found);
  };
  const stack: { value: unknown; schema: Schema | undefined; path: string }[] = [{ value, schema, path: '' }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value: current, schema: currentSchema, path } = next;
    if (typeof current === 'string') {
      if (hasNul(current)) report(problem(path || 'body', 'nulCharacter'));
    } else if (Array.isArray(current)) {
      if (current.length > MAX_ARRAY_ITEMS) {
        const limit = Math.min(maxItemsOf(currentSchema) ?? MAX_ARRAY_ITEMS, MAX_ARRAY_ITEMS);
        report(problem(path || 'body', 'maxItems', limit));
        continue;
      }
      const items = childSchema(currentSchema, 0);
      for (let i = current.length - 1; i >= 0; i--) {
        stack.push({ value: current[i], schema: items, path: path ? `${path}.${i}` : String(i) });
      }
    } else if (typeof current === 'object' && current !== null) {
      const keys = Object.keys(current);
      for (const key of keys.toReversed()) {
        const keyPath = path ? `${path}.${key}` : key;
        if (hasNul(key)) {
          report(problem(path || 'body', 'nulCharacter'));
          continue;
        }
        stack.push({
          value: (current as Record<string, unknown>)[key],
          schema: childSchema(currentSchema, key),
          path: keyPath,
        });
      }
    }
  }
  if (total > 0) throw validationError(problems, total);
}
