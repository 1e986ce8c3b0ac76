import type { ComponentChildren } from 'preact';
import { CsrfField, FieldsToCorrect } from '../../pages/forms.tsx';

/** A console form of its own card: heading, the fields to correct (when errors are given), CSRF. */
export function FormCard(props: {
  action: string;
  title: string;
  csrf: string;
  errors?: Readonly<Record<string, unknown>>;
  children: ComponentChildren;
}) {
  return (
    <form method="post" action={props.action} class="card" novalidate>
      <h2>{props.title}</h2>
      {props.errors ? <FieldsToCorrect errors={props.errors} /> : null}
      <CsrfField token={props.csrf} />
      {props.children}
    </form>
  );
}
