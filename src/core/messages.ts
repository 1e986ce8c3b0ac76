/**
 * Laravel's default validation wording. Clients show these strings to people, so they follow
 * Laravel exactly: the attribute is the dotted field path with underscores read as spaces.
 */
export function attributeName(path: string): string {
  return path.replaceAll('_', ' ');
}

const say = (path: string, rest: string) => `The ${attributeName(path)} field ${rest}`;

export const messages = {
  required: (path: string) => say(path, 'is required.'),
  string: (path: string) => say(path, 'must be a string.'),
  integer: (path: string) => say(path, 'must be an integer.'),
  numeric: (path: string) => say(path, 'must be a number.'),
  boolean: (path: string) => say(path, 'must be true or false.'),
  array: (path: string) => say(path, 'must be an array.'),
  email: (path: string) => say(path, 'must be a valid email address.'),
  url: (path: string) => say(path, 'must be a valid URL.'),
  date: (path: string) => say(path, 'must match the format Y-m-d.'),
  format: (path: string) => say(path, 'format is invalid.'),
  prohibited: (path: string) => say(path, 'is prohibited.'),
  minLength: (path: string, n: number) => say(path, `must be at least ${n} characters.`),
  maxLength: (path: string, n: number) => say(path, `must not be greater than ${n} characters.`),
  min: (path: string, n: number) => say(path, `must be at least ${n}.`),
  max: (path: string, n: number) => say(path, `must not be greater than ${n}.`),
  gt: (path: string, n: number) => say(path, `must be greater than ${n}.`),
  between: (path: string, min: number, max: number) => say(path, `must be between ${min} and ${max}.`),
  minItems: (path: string, n: number) => say(path, `must have at least ${n} items.`),
  maxItems: (path: string, n: number) => say(path, `must not have more than ${n} items.`),
  distinct: (path: string) => say(path, 'has a duplicate value.'),
  nulCharacter: (path: string) => say(path, 'must not contain a NUL character.'),
  notFuture: (path: string) => say(path, 'must be a date before or equal to now.'),
  invalid: (path: string) => `The selected ${attributeName(path)} is invalid.`,
  taken: (path: string) => `The ${attributeName(path)} has already been taken.`,
} as const;
