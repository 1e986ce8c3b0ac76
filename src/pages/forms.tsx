import type { ComponentChildren } from 'preact';
import type { Static, TSchema } from 'typebox';
import type { FieldProblem } from '../core/errors.ts';
import { collectFieldProblems, compileBodyValidator } from '../http/validation.ts';

/** Form pieces every page form uses: labelled fields with their error, CSRF token, honeypot. */

export interface FieldProps {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password';
  value?: string;
  error?: string | undefined;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  maxLength?: number;
}

export function Field(props: FieldProps) {
  const id = `field-${props.name}`;
  const described = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  const attributes = {
    id,
    name: props.name,
    value: props.value ?? '',
    required: props.required,
    autocomplete: props.autocomplete,
    maxLength: props.maxLength ?? 255,
    'aria-invalid': props.error ? ('true' as const) : undefined,
    'aria-describedby': described || undefined,
  };
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <span class="hint" id={`${id}-hint`}>
          {props.hint}
        </span>
      ) : null}
      {props.type === 'email' ? (
        <input type="email" {...attributes} />
      ) : props.type === 'password' ? (
        <input type="password" {...attributes} />
      ) : (
        <input type="text" {...attributes} />
      )}
      {props.error ? (
        <p class="error" id={`${id}-error`}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

export function Checkbox(props: {
  name: string;
  /** Text, or text with a link (the terms a sign-up accepts). */
  label: ComponentChildren;
  checked?: boolean;
  error?: string | undefined;
}) {
  const id = `field-${props.name}`;
  return (
    <div class="field">
      <div class="check">
        <input
          id={id}
          name={props.name}
          type="checkbox"
          value="yes"
          checked={props.checked}
          required
          aria-invalid={props.error ? 'true' : undefined}
          aria-describedby={props.error ? `${id}-error` : undefined}
        />
        <label for={id}>{props.label}</label>
      </div>
      {props.error ? (
        <p class="error" id={`${id}-error`}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

/** The CSRF token of the form (@fastify/csrf-protection reads `_csrf`). */
export const CsrfField = (props: { token: string }) => (
  <input type="hidden" name="_csrf" value={props.token} />
);

/** Name of the honeypot field: people never see it, form-filling bots do. */
export const HONEYPOT = 'website';

export const Honeypot = () => (
  <div class="hp" aria-hidden="true">
    <label for="field-website">Leave this field empty</label>
    <input id="field-website" name={HONEYPOT} type="text" tabindex={-1} autocomplete="off" value="" />
  </div>
);

/** A text field of a posted form: trimmed, or empty when absent or not text. */
export function formText(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value.trim() : '';
}

/** A problem with the whole form, announced to screen readers. */
export function Notice(props: { children: ComponentChildren }) {
  return (
    <p class="notice" role="alert">
      {props.children}
    </p>
  );
}

/** The notice above a form sent back with errors: how many fields to correct (nothing when none). */
export function FieldsToCorrect(props: { errors: Readonly<Record<string, unknown>> }) {
  const count = Object.keys(props.errors).length;
  if (count === 0) return null;
  return <Notice>Please correct {count === 1 ? 'the field' : `the ${count} fields`} marked below.</Notice>;
}

/** A read-only link with a copy button (shown by the copy script; without it the link is selectable). */
export function CopyField(props: { id: string; url: string; label: string; button?: string }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <div class="copy">
        <input id={props.id} type="url" readOnly value={props.url} />
        <button
          type="button"
          class="secondary"
          data-copy={props.id}
          data-status={`${props.id}-status`}
          hidden
        >
          {props.button ?? 'Copy link'}
        </button>
      </div>
      <p id={`${props.id}-status`} class="muted status" aria-live="polite" />
    </div>
  );
}

/**
 * A form's values checked against a route's body schema, with the same validator and messages as
 * the API: the field problems, or undefined when the values pass.
 */
export function formValidator(schema: TSchema): (values: unknown) => readonly FieldProblem[] | undefined {
  const validate = compileBodyValidator(schema);
  return (values) =>
    validate(values)
      ? undefined
      : collectFieldProblems(validate.errors ?? [], Number.POSITIVE_INFINITY).problems;
}

/**
 * A form's values read as a route's body: the typed body when they pass the route's own schema
 * (the same validator and messages as the API), else the field problems.
 */
export function formParser<S extends TSchema>(
  schema: S,
): (values: unknown) => { body: Static<S> } | { problems: readonly FieldProblem[] } {
  const validate = compileBodyValidator(schema);
  return (values) =>
    validate(values)
      ? // The schema's own validator passed them: they are its static type.
        { body: values as Static<S> }
      : { problems: collectFieldProblems(validate.errors ?? [], Number.POSITIVE_INFINITY).problems };
}

/** A labelled choice of one of `options` (value and words), with its error. */
export function Select(props: {
  name: string;
  label: string;
  options: readonly { value: string; label: string }[];
  value?: string | undefined;
  error?: string | undefined;
  hint?: string;
}) {
  const id = `field-${props.name}`;
  const described = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <span class="hint" id={`${id}-hint`}>
          {props.hint}
        </span>
      ) : null}
      <select
        id={id}
        name={props.name}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={described || undefined}
      >
        <option value="">Choose…</option>
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
