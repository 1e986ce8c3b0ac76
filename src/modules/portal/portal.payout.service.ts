import { AppError, type FieldProblem } from '../../core/errors.ts';
import type { PayoutDetails, PayoutMethod } from '../../core/payouts.ts';
import { updatePartner } from '../partners/partners.service.ts';
import type { PortalProgram, SignedInPartner } from './portal.service.ts';

/** Each method's fields on the settings form, in the order shown (core/payouts.ts says which it needs). */
export const payoutFieldsByMethod = {
  paypal: ['email'],
  wise: ['email', 'iban', 'account_holder'],
  bank_transfer: ['account_holder', 'iban', 'account_number', 'routing_number', 'swift_bic', 'bank_name'],
  manual: ['note'],
} as const satisfies Record<PayoutMethod, readonly (keyof PayoutDetails)[]>;

export type PayoutField = keyof PayoutDetails;

/** Every payout field of the form. */
export const PAYOUT_FIELDS: readonly PayoutField[] = [
  'email',
  'iban',
  'account_holder',
  'account_number',
  'routing_number',
  'swift_bic',
  'bank_name',
  'note',
];

export const payoutFieldWords: Record<PayoutField, string> = {
  email: 'e-mail address',
  iban: 'IBAN',
  account_holder: "account holder's name",
  account_number: 'account number',
  routing_number: 'routing number',
  swift_bic: 'SWIFT/BIC code',
  bank_name: "bank's name",
  note: 'note',
};

export interface PayoutForm {
  method: string;
  details: Partial<Record<PayoutField, string>>;
}

/** Problems by form field: `payout_method` or a detail's name. */
export type PayoutErrors = Partial<Record<'payout_method' | PayoutField, string>>;

/** The partner's payout method and fields as stored (shown on the settings form only). */
export function payoutOf(partner: SignedInPartner): PayoutForm {
  const stored: unknown = JSON.parse(partner.row.payout_details || '{}');
  const details = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
  return {
    method: partner.row.payout_method ?? '',
    details: Object.fromEntries(
      Object.keys(payoutFieldWords)
        .filter((field) => typeof details[field] === 'string')
        .map((field) => [field, details[field] as string]),
    ),
  };
}

/** The body the partners service takes: the method's own fields, the empty ones left out. */
export function payoutInput(form: PayoutForm) {
  const fields: readonly PayoutField[] = payoutFieldsByMethod[form.method as PayoutMethod] ?? PAYOUT_FIELDS;
  return {
    payout_method: form.method,
    payout_details: Object.fromEntries(
      fields
        .filter((field) => (form.details[field] ?? '') !== '')
        .map((field) => [field, form.details[field]]),
    ),
  };
}

/** Whether a problem is a value missing (Laravel's `required` and `required_if`). */
export const isMissing = (found: FieldProblem) => found.rule === 'required' || found.rule === 'requiredWhen';

/** The API's field problems (`payout_details.iban`) in the page's words, by form field. */
export function payoutProblemsInWords(problems: readonly FieldProblem[]): PayoutErrors {
  const errors: PayoutErrors = {};
  for (const path of new Set(problems.map((found) => found.field))) {
    const onField = problems.filter((found) => found.field === path);
    if (path === 'payout_method') {
      errors.payout_method = 'Choose how you want to be paid.';
      continue;
    }
    const field = /^payout_details\.(\w+)$/.exec(path)?.[1] as PayoutField | undefined;
    if (!field || !(field in payoutFieldWords)) continue;
    const words = payoutFieldWords[field];
    const longest = onField.flatMap((found) => (found.rule === 'maxLength' ? [found.params[0]] : []))[0];
    errors[field] = onField.some(isMissing)
      ? field === 'iban'
        ? 'Enter your IBAN or your account number.'
        : `Enter your ${words}.`
      : longest !== undefined
        ? `Enter at most ${longest} characters.`
        : `This ${words} is not valid: check it and try again.`;
  }
  return errors;
}

/**
 * The settings form's payout method and fields, stored through the partners service as
 * `PUT /v1/partners` stores them (the method's required fields, `partner.updated`); the caller
 * has checked them against the API's schema. Answers the problems in the page's words.
 */
export async function updatePayout(
  portal: PortalProgram,
  partner: SignedInPartner,
  input: ReturnType<typeof payoutInput>,
): Promise<PayoutErrors | undefined> {
  try {
    await updatePartner(portal.ctx, partner.row.public_id, {
      payout_method: input.payout_method as PayoutMethod,
      payout_details: input.payout_details,
    });
    return undefined;
  } catch (error) {
    if (error instanceof AppError && error.status === 422) return payoutProblemsInWords(error.problems);
    throw error;
  }
}

/** The payout form's schema: the pages validate the form with the partners module's own rules. */
export { PartnerPayoutInput } from '../partners/partners.schemas.ts';
