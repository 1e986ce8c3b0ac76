import { CsrfField, Field, Notice, Select } from '../../pages/forms.tsx';
import {
  type PayoutErrors,
  type PayoutField,
  type PayoutForm,
  payoutFieldsByMethod,
} from './portal.payout.service.ts';
import type { PortalProgram } from './portal.service.ts';

/** The settings page's payout section: the chosen method's fields only. */

const payoutMethodChoices = [
  { value: 'paypal', label: 'PayPal' },
  { value: 'wise', label: 'Wise' },
  { value: 'bank_transfer', label: 'Bank transfer' },
  { value: 'manual', label: 'Other (agreed with the program)' },
] as const;

type ShownMethod = keyof typeof payoutFieldsByMethod;

/** A method the form knows, from a query or a stored value; else undefined. */
export function shownPayoutMethod(value: unknown): ShownMethod | undefined {
  return typeof value === 'string' && Object.hasOwn(payoutFieldsByMethod, value)
    ? (value as ShownMethod)
    : undefined;
}

const payoutFieldLabels: Record<PayoutField, { label: string; hint?: string }> = {
  email: { label: 'E-mail address' },
  iban: { label: 'IBAN', hint: 'For example DE89 3704 0044 0532 0130 00.' },
  account_holder: { label: "Account holder's name" },
  account_number: { label: 'Account number', hint: 'When your account has no IBAN.' },
  routing_number: { label: 'Routing, sort code or BSB number' },
  swift_bic: { label: 'SWIFT/BIC code', hint: '8 or 11 letters and digits.' },
  bank_name: { label: "Bank's name" },
  note: { label: 'Note (when paid another way)' },
};

/** The e-mail field is the account at the chosen service: its label says which. */
const emailLabels: Partial<Record<ShownMethod, string>> = {
  paypal: 'PayPal e-mail address',
  wise: 'Wise e-mail address',
};

function fieldLabel(method: ShownMethod, field: PayoutField): string {
  return (field === 'email' ? emailLabels[method] : undefined) ?? payoutFieldLabels[field].label;
}

const methodHints: Record<ShownMethod, string> = {
  paypal: 'Your PayPal e-mail address.',
  wise: "Your Wise e-mail address, or an IBAN with the account holder's name.",
  bank_transfer: "The account holder's name and an IBAN or an account number.",
  manual: 'How you agreed to be paid.',
};

/**
 * The method is chosen first (a plain GET form: choosing reloads the page with `?payout_method=`,
 * no script needed), then only that method's fields are shown in the form that saves them.
 */
export function PayoutSection(props: {
  portal: PortalProgram;
  csrf: string;
  payout: PayoutForm;
  errors: PayoutErrors;
  /** A method asked for in the query: shown instead of the stored one. */
  chosen?: string | undefined;
}) {
  const { portal, payout, errors } = props;
  const method = shownPayoutMethod(props.chosen) ?? shownPayoutMethod(payout.method);
  const label = payoutMethodChoices.find((choice) => choice.value === method)?.label;
  return (
    <section class="card" aria-labelledby="payout-heading">
      <h2 id="payout-heading">How you are paid</h2>
      <p class="muted">{portal.name} pays your approved commissions this way.</p>
      {Object.keys(errors).length > 0 ? (
        <Notice>Your payout details are not saved yet: check the fields marked below.</Notice>
      ) : null}
      <form method="get" action={`${portal.base}/settings#payout-heading`}>
        <Select
          name="payout_method"
          label="Payout method"
          options={payoutMethodChoices}
          value={method ?? ''}
          error={errors.payout_method}
        />
        <button type="submit" class="secondary">
          {method ? 'Change method' : 'Choose method'}
        </button>
      </form>
      {method ? (
        <form method="post" action={`${portal.base}/settings/payout`} novalidate>
          <CsrfField token={props.csrf} />
          <input type="hidden" name="payout_method" value={method} />
          <h3>{label}</h3>
          <p class="muted">{methodHints[method]}</p>
          {payoutFieldsByMethod[method].map((field) => (
            <Field
              key={field}
              name={`payout_${field}`}
              label={fieldLabel(method, field)}
              hint={payoutFieldLabels[field].hint}
              type={field === 'email' ? 'email' : 'text'}
              maxLength={field === 'note' ? 1000 : 255}
              value={payout.details[field] ?? ''}
              error={errors[field]}
            />
          ))}
          <button type="submit">Save payout details</button>
        </form>
      ) : (
        <p class="muted">Choose a method to see the details it needs.</p>
      )}
    </section>
  );
}
