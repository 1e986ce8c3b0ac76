/**
 * Laravel's default validation wording, and the few sentences of Vouch's own. Clients show these
 * strings to people, so they follow Laravel exactly: the attribute is the dotted field path with
 * underscores read as spaces. Services never build these strings: they name a field, a rule (a key
 * of `messages`) and its parameters (`fieldError` in core/errors.ts); the answer is worded here,
 * by `renderFieldErrors`, at the edge (HTTP error body, pages).
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
  lessThan: (path: string, n: number) => say(path, `must be less than ${n}.`),
  decimals: (path: string, n: number) => say(path, `must not have more than ${n} decimal places.`),
  between: (path: string, min: number, max: number) => say(path, `must be between ${min} and ${max}.`),
  minItems: (path: string, n: number) => say(path, `must have at least ${n} items.`),
  maxItems: (path: string, n: number) => say(path, `must not have more than ${n} items.`),
  distinct: (path: string) => say(path, 'has a duplicate value.'),
  /** Laravel's `required_if`: `other` (a field path) has `value`. */
  requiredWhen: (path: string, other: string, value: string) =>
    say(path, `is required when ${attributeName(other)} is ${value}.`),
  /** Laravel's `prohibited_if`. */
  prohibitedWhen: (path: string, other: string, value: string) =>
    say(path, `is prohibited when ${attributeName(other)} is ${value}.`),
  mixedCase: (path: string) => say(path, 'must contain at least one uppercase and one lowercase letter.'),
  digit: (path: string) => say(path, 'must contain at least one number.'),
  nulCharacter: (path: string) => say(path, 'must not contain a NUL character.'),
  notFuture: (path: string) => say(path, 'must be a date before or equal to now.'),
  invalid: (path: string) => `The selected ${attributeName(path)} is invalid.`,
  archived: (path: string) => `The selected ${attributeName(path)} is archived.`,
  taken: (path: string) => `The ${attributeName(path)} has already been taken.`,
  // Vouch's own sentences that name the field.
  privateAddress: (path: string, refused: string) =>
    say(path, `must not point to a private or reserved address (${refused}).`),
  overRefundable: (path: string, left: string) =>
    `The ${attributeName(path)} must not be greater than ${left} (what is left to refund).`,
  overBalance: (path: string, available: number, units: string) =>
    `The ${attributeName(path)} must not be greater than the balance (${available} ${units}).`,
  https: (path: string) => say(path, 'must be an https URL.'),
  /** White text on a brand colour (issue 30): WCAG AA's 4.5:1. */
  contrast: (path: string, ratio: string, min: string) =>
    say(path, `must have a contrast of at least ${min}:1 with white text (this colour has ${ratio}:1).`),
  commissionMove: (_path: string, id: number, state: string, verb: string) =>
    `The commission ${id} is ${state} and cannot be ${verb}.`,
  /** A sentence about the request that does not name the field (a state, a conflict). */
  refused: (_path: string, sentence: string) => sentence,
} as const;

/** A validation rule: a key of the messages table. */
export type Rule = keyof typeof messages;

/** The parameters a rule's wording takes after the field path (`max`: the bound). */
export type RuleParams<R extends Rule> = (typeof messages)[R] extends (
  path: string,
  ...params: infer P
) => string
  ? P
  : never;

/** One problem with one field: the field's dotted path, the rule it breaks and the rule's parameters. */
export interface ProblemOf<R extends Rule> {
  readonly field: string;
  readonly rule: R;
  readonly params: RuleParams<R>;
}

/** A problem with any rule, each rule with its own parameters. */
export type FieldProblem = { [R in Rule]: ProblemOf<R> }[Rule];

/** Field errors as they go on the wire: messages by dotted path. */
export type RenderedFieldErrors = Record<string, string[]>;

type Wording = (path: string, ...params: readonly (string | number)[]) => string;

/** The wording of one problem. */
export function renderProblem(problem: FieldProblem): string {
  // Correlated by `FieldProblem`: each rule comes with its own parameters.
  const wording = messages[problem.rule] as Wording;
  return wording(problem.field, ...problem.params);
}

/** The wire's `errors` object: each field's messages in the order found. */
export function renderFieldErrors(problems: readonly FieldProblem[]): RenderedFieldErrors {
  const rendered: RenderedFieldErrors = {};
  for (const problem of problems) (rendered[problem.field] ??= []).push(renderProblem(problem));
  return rendered;
}

/**
 * Laravel's summary line: the first message, plus "(and N more errors)". `total` counts every
 * problem when the list holds only the first of them (validation stops listing at a bound).
 */
export function summarizeFieldErrors(rendered: RenderedFieldErrors, total?: number): string {
  const all = Object.values(rendered).flat();
  const first = all[0] ?? 'The given data was invalid.';
  const more = Math.max(total ?? 0, all.length) - 1;
  if (more <= 0) return first;
  return `${first} (and ${more} more ${more === 1 ? 'error' : 'errors'})`;
}
