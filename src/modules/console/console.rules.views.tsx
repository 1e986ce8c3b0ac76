import type { ComponentChildren } from 'preact';
import { CsrfField, Field, FieldsToCorrect } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { FormCard } from './console.forms.views.tsx';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Done, RowButton } from './console.lists.views.tsx';
import { type ConsoleProgram, mayWrite } from './console.programs.service.ts';
import { type CommissionRules, kindChoices, rewardSides, triggerChoices } from './console.rules.service.ts';

/** A refer-a-friend program's rewards, and an affiliate program's second tier and product commissions. */

const idOf = (name: string) => `rule-${name.replaceAll('.', '-')}`;

/** A labelled choice with its error; every option is a real value (no "Choose…"). */
function Choice(props: {
  name: string;
  label: string;
  options: readonly { value: string; label: string }[];
  value: string;
  error?: string | undefined;
  disabled: boolean;
}) {
  const id = idOf(props.name);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        disabled={props.disabled}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={props.error ? `${id}-error` : undefined}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value} selected={option.value === props.value}>
            {option.label}
          </option>
        ))}
      </select>
      {props.error ? (
        <p class="error" id={`${id}-error`}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

function Box(props: { name: string; label: string; checked: boolean; disabled: boolean }) {
  const id = idOf(props.name);
  return (
    <div class="field">
      <div class="check">
        <input
          id={id}
          name={props.name}
          type="checkbox"
          value="yes"
          checked={props.checked}
          disabled={props.disabled}
        />
        <label for={id}>{props.label}</label>
      </div>
    </div>
  );
}

function Frame(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  title: string;
  section: 'rewards' | 'settings';
  children: ComponentChildren;
}) {
  return (
    <ConsoleLayout
      title={props.title}
      user={props.user}
      csrf={props.csrf}
      program={props.program}
      section={props.section}
    >
      {props.children}
    </ConsoleLayout>
  );
}

export function RewardsPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  values: Record<string, string>;
  errors?: Record<string, string>;
  saved?: boolean;
}) {
  const errors = props.errors ?? {};
  const readOnly = !mayWrite(props.program.role);
  const error = (side: string, key: string) => errors[`program_settings.${side}.${key}`];
  return (
    <Frame {...props} title="Rewards" section="rewards">
      <div class="card">
        <h1>Rewards</h1>
        <p class="muted">
          What a customer earns for referring a friend, and what the friend earns, on the friend’s purchases.
        </p>
        {props.saved ? <Done>The rewards were saved.</Done> : null}
        <FieldsToCorrect errors={errors} />
        {errors.program_settings ? <p class="error">{errors.program_settings}</p> : null}
      </div>
      <form method="post" novalidate>
        <CsrfField token={props.csrf} />
        {rewardSides.map(({ side, title, who }) => (
          <fieldset class="card" key={side} disabled={readOnly}>
            <legend>
              <h2>{title}</h2>
            </legend>
            <Box
              name={`${side}.on`}
              label={`Reward ${who}`}
              checked={props.values[`${side}.on`] !== ''}
              disabled={readOnly}
            />
            <Choice
              name={`${side}.type`}
              label="Kind"
              options={kindChoices}
              value={props.values[`${side}.type`] ?? 'fixed'}
              error={error(side, 'type')}
              disabled={readOnly}
            />
            <Field
              name={`${side}.value`}
              label="Value"
              value={props.values[`${side}.value`]}
              error={error(side, 'value')}
              maxLength={32}
              hint="Percent, or an amount."
            />
            <Box
              name={`${side}.is_currency`}
              label="Paid in money (else in units such as points)"
              checked={props.values[`${side}.is_currency`] !== ''}
              disabled={readOnly}
            />
            <Field
              name={`${side}.amount_units`}
              label="Currency or unit"
              value={props.values[`${side}.amount_units`]}
              error={error(side, 'amount_units')}
              maxLength={32}
              hint="A currency code like USD, or a unit name like points."
            />
            <Choice
              name={`${side}.trigger`}
              label="Earned on"
              options={triggerChoices}
              value={props.values[`${side}.trigger`] ?? 'first_purchase'}
              error={error(side, 'trigger')}
              disabled={readOnly}
            />
            <Field
              name={`${side}.limit`}
              label="Most rewards per friend"
              value={props.values[`${side}.limit`]}
              error={error(side, 'limit')}
              maxLength={16}
              hint="Empty: no limit."
            />
          </fieldset>
        ))}
        {readOnly ? null : (
          <p class="actions">
            <button type="submit">Save rewards</button>
          </p>
        )}
      </form>
    </Frame>
  );
}

export type ProductForm = Record<'product_id' | 'product_type' | 'type' | 'value', string>;

const tier2Choices = [{ value: '', label: 'No second tier' }, ...kindChoices] as const;

export function CommissionRulesPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  rules: CommissionRules;
  tier2?: { type: string; value: string };
  product?: ProductForm;
  errors?: Record<string, string>;
  done?: string | undefined;
}) {
  const { program, rules } = props;
  const errors = props.errors ?? {};
  const readOnly = !mayWrite(program.role);
  const base = `${program.base}/settings/commissions`;
  const tier2 = props.tier2 ?? rules.tier2;
  return (
    <Frame {...props} title="Second tier and product commissions" section="settings">
      <div class="card">
        <p>
          <a href={`${program.base}/settings`}>All settings</a>
        </p>
        <h1>Second tier and product commissions</h1>
        {props.done ? <Done>{props.done}</Done> : null}
        <FieldsToCorrect errors={errors} />
      </div>
      <form method="post" action={`${base}/tier2`} novalidate>
        <CsrfField token={props.csrf} />
        <fieldset class="card" disabled={readOnly}>
          <legend>
            <h2>Second tier</h2>
          </legend>
          <p class="muted">What the partner who brought a partner earns on that partner’s sales.</p>
          <Choice
            name="tier2.type"
            label="Second-tier commission"
            options={tier2Choices}
            value={tier2.type}
            error={errors['tier2.type']}
            disabled={readOnly}
          />
          <Field
            name="tier2.value"
            label="Value"
            value={tier2.value}
            error={errors['tier2.value']}
            maxLength={32}
            hint="Percent, or an amount."
          />
          {readOnly ? null : (
            <p class="actions">
              <button type="submit">Save second tier</button>
            </p>
          )}
        </fieldset>
      </form>
      <div class="card">
        <h2>Product commissions</h2>
        <p class="muted">A sale of a product named here earns this commission instead of the program’s.</p>
        {rules.products.length === 0 ? (
          <p class="muted">None: every sale earns the program’s commission.</p>
        ) : (
          <form method="post" action={`${base}/products/remove`}>
            <CsrfField token={props.csrf} />
            <div class="scroll">
              <table class="stack">
                <thead>
                  <tr>
                    <th scope="col">Product id</th>
                    <th scope="col">Product type</th>
                    <th scope="col">Commission</th>
                    {readOnly ? null : <th scope="col">Actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {rules.products.map((rule) => (
                    <tr key={rule.index}>
                      <td data-label="Product id">{rule.productId || 'Any'}</td>
                      <td data-label="Product type">{rule.productType || 'Any'}</td>
                      <td data-label="Commission">
                        {rule.type === 'percent' ? `${rule.value} %` : `${rule.value} fixed`}
                      </td>
                      {readOnly ? null : (
                        <RowButton
                          name="index"
                          value={String(rule.index)}
                          label={`Remove the commission of ${rule.productId || rule.productType}`}
                        >
                          Remove
                        </RowButton>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </form>
        )}
      </div>
      {readOnly ? null : (
        <FormCard action={`${base}/products`} title="Add a product commission" csrf={props.csrf}>
          <Field
            name="product_id"
            label="Product id"
            value={props.product?.product_id}
            error={errors.product_id}
            hint="Empty: any product of the type."
          />
          <Field
            name="product_type"
            label="Product type"
            value={props.product?.product_type}
            error={errors.product_type}
            hint="Empty: any type."
          />
          <Choice
            name="type"
            label="Kind"
            options={kindChoices}
            value={props.product?.type ?? 'percent'}
            error={errors.type}
            disabled={false}
          />
          <Field
            name="value"
            label="Value"
            value={props.product?.value}
            error={errors.value}
            maxLength={32}
            hint="Percent, or an amount."
          />
          <p class="actions">
            <button type="submit">Add product commission</button>
          </p>
        </FormCard>
      )}
    </Frame>
  );
}
