import { isCountryCode } from './countries.ts';
import { type FieldProblem, problem } from './errors.ts';

/**
 * Leads: the custom form partners answer when they submit one, and the moves a lead can make.
 * Pure: the leads service reads the setup and the lead, these decide.
 */

export const leadFieldTypes = [
  'text',
  'input',
  'textarea',
  'checkbox',
  'radio',
  'select',
  'countries',
] as const;
export type LeadFieldType = (typeof leadFieldTypes)[number];

export interface LeadFormField {
  id: number;
  type: LeadFieldType;
  title: string;
  /** HTML shown with the field. */
  text: string;
  description: string | null;
  required: boolean;
  /** The choices of `checkbox`, `radio` and `select`; empty for the other types. */
  options: string[];
}

/** A field as a setup update sends it: without `id` it is new, with one it keeps that id. */
export type LeadFormFieldInput = Omit<LeadFormField, 'id'> & { id?: number | undefined };

/** Longest answer per free-text type, in characters. */
export const answerLimits = { text: 255, input: 255, textarea: 10_000 } as const;

const withOptions: ReadonlySet<LeadFieldType> = new Set(['checkbox', 'radio', 'select']);

export type LeadAnswer = string | string[];

/**
 * The new form of a setup update: given ids must name a current field (once each); fields without
 * one get fresh ids from `nextId`, which only grows, so an id never names two questions.
 */
export function assignFieldIds(
  current: readonly LeadFormField[],
  incoming: readonly LeadFormFieldInput[],
  nextId: number,
  prefix = 'leads_custom_form_fields',
): { fields: LeadFormField[]; nextId: number; errors: FieldProblem[] } {
  const known = new Set(current.map((field) => field.id));
  const seen = new Set<number>();
  const errors: FieldProblem[] = [];
  const fields: LeadFormField[] = [];
  let next = nextId;
  for (const [index, input] of incoming.entries()) {
    const path = `${prefix}.${index}`;
    let id = input.id;
    if (id !== undefined) {
      if (!known.has(id)) errors.push(problem(`${path}.id`, 'invalid'));
      else if (seen.has(id)) errors.push(problem(`${path}.id`, 'distinct'));
      seen.add(id);
    } else {
      id = next++;
    }
    const options = withOptions.has(input.type) ? [...input.options] : [];
    if (withOptions.has(input.type)) {
      if (options.length === 0) errors.push(problem(`${path}.options`, 'required'));
      else if (new Set(options).size !== options.length) errors.push(problem(`${path}.options`, 'distinct'));
    }
    fields.push({
      id,
      type: input.type,
      title: input.title,
      text: input.text,
      description: input.description,
      required: input.required,
      options,
    });
  }
  return { fields, nextId: next, errors };
}

const isBlank = (answer: LeadAnswer | undefined) =>
  answer === undefined || (typeof answer === 'string' ? answer.trim() === '' : answer.length === 0);

/**
 * Checks a submission's `cfields` against the form: every key names a field, required fields are
 * answered, choices are among the options, countries are ISO 3166-1 alpha-2 codes, free text fits.
 * Returns the answers to store (country codes upper-cased, blanks dropped) or the field errors.
 */
export function checkLeadAnswers(
  form: readonly LeadFormField[],
  cfields: Readonly<Record<string, LeadAnswer>> | undefined,
): { answers: Record<string, LeadAnswer>; errors: FieldProblem[] } {
  const given = cfields ?? {};
  const errors: FieldProblem[] = [];
  const answers: Record<string, LeadAnswer> = {};
  const byId = new Map(form.map((field) => [String(field.id), field]));
  for (const key of Object.keys(given)) {
    if (!byId.has(key)) errors.push(problem(`cfields.${key}`, 'invalid'));
  }
  for (const field of form) {
    const path = `cfields.${field.id}`;
    const answer = given[String(field.id)];
    if (answer === undefined || isBlank(answer)) {
      if (field.required) errors.push(problem(path, 'required'));
      continue;
    }
    const refused = answerProblem(field, answer, path);
    if (refused) errors.push(refused);
    else answers[String(field.id)] = normalized(field, answer);
  }
  return { answers, errors };
}

function answerProblem(field: LeadFormField, answer: LeadAnswer, path: string): FieldProblem | undefined {
  switch (field.type) {
    case 'checkbox':
      if (!Array.isArray(answer)) return problem(path, 'array');
      if (new Set(answer).size !== answer.length) return problem(path, 'distinct');
      return answer.every((choice) => field.options.includes(choice)) ? undefined : problem(path, 'invalid');
    case 'radio':
    case 'select':
      if (typeof answer !== 'string') return problem(path, 'string');
      return field.options.includes(answer) ? undefined : problem(path, 'invalid');
    case 'countries':
      if (typeof answer !== 'string') return problem(path, 'string');
      return isCountryCode(answer.trim().toUpperCase()) ? undefined : problem(path, 'invalid');
    case 'text':
    case 'input':
    case 'textarea': {
      if (typeof answer !== 'string') return problem(path, 'string');
      const limit = answerLimits[field.type];
      return [...answer].length > limit ? problem(path, 'maxLength', limit) : undefined;
    }
  }
}

function normalized(field: LeadFormField, answer: LeadAnswer): LeadAnswer {
  if (field.type === 'countries' && typeof answer === 'string') return answer.trim().toUpperCase();
  return answer;
}

export interface SubmissionEntry {
  question: string;
  answer: string | null;
}

/** "Name", "Email address", then each field's title with its answer (choices comma-joined). */
export function submissionForm(
  lead: { name: string; email: string },
  form: readonly LeadFormField[],
  answers: Readonly<Record<string, LeadAnswer>>,
): SubmissionEntry[] {
  return [
    { question: 'Name', answer: lead.name },
    { question: 'Email address', answer: lead.email },
    ...form.map((field) => {
      const answer = answers[String(field.id)];
      return {
        question: field.title,
        answer: answer === undefined ? null : Array.isArray(answer) ? answer.join(', ') : answer,
      };
    }),
  ];
}

export type LeadStatus = 'submitted' | 'converted' | 'rejected';

/** The spec's state table: a rejected lead can still be converted; a converted one is final. */
export function leadFlags(status: LeadStatus): { can_be_converted: boolean; can_be_rejected: boolean } {
  return { can_be_converted: status !== 'converted', can_be_rejected: status === 'submitted' };
}

/** Why a lead in `status` cannot make the move, or undefined when it can. */
export function refusedLeadMove(status: LeadStatus, move: 'convert' | 'reject'): string | undefined {
  if (status === 'converted') return 'The lead has already been converted.';
  if (move === 'reject' && status === 'rejected') return 'The lead has already been rejected.';
  return undefined;
}
