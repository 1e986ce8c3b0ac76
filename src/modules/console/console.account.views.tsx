import { CsrfField, Field, FieldsToCorrect, Notice } from '../../pages/forms.tsx';
import { Layout } from '../../pages/layout.tsx';
import type { AccountErrors, AccountForm } from './console.accounts.service.ts';

/** The console's pages before a user is in: the first user's set-up and sign-in. */

export function SetupPage(props: {
  csrf: string;
  values?: { email: string };
  errors?: AccountErrors & { token?: string };
}) {
  const errors = props.errors ?? {};
  return (
    <Layout title="Set up Vouch" site="Vouch console">
      <div class="card">
        <h1>Set up the console</h1>
        <p class="lead">
          Create the first console user. It runs every program of this server. To prove this server is yours,
          enter its admin token (the <code>ADMIN_TOKEN</code> it was started with).
        </p>
        <FieldsToCorrect errors={errors} />
        <form method="post" novalidate>
          <CsrfField token={props.csrf} />
          <Field
            name="token"
            label="Admin token"
            type="password"
            required
            autocomplete="off"
            error={errors.token}
          />
          <Field
            name="email"
            label="Email"
            type="email"
            required
            autocomplete="email"
            value={props.values?.email}
            error={errors.email}
          />
          <Field
            name="password"
            label="Password"
            type="password"
            required
            autocomplete="new-password"
            hint="At least 8 characters, with a lowercase and an uppercase letter and a digit."
            error={errors.password}
          />
          <button type="submit">Create user</button>
        </form>
      </div>
    </Layout>
  );
}

export function SignInPage(props: {
  csrf: string;
  values?: Pick<AccountForm, 'email'>;
  wrong?: boolean;
  wait?: string;
}) {
  return (
    <Layout title="Sign in" site="Vouch console">
      <div class="card">
        <h1>Sign in to the console</h1>
        {props.wrong ? <Notice>The e-mail address or the password is not right.</Notice> : null}
        {props.wait ? <Notice>Too many tries. You can try again {props.wait}.</Notice> : null}
        <form method="post" novalidate>
          <CsrfField token={props.csrf} />
          <Field
            name="email"
            label="Email"
            type="email"
            required
            autocomplete="email"
            value={props.values?.email}
          />
          <Field name="password" label="Password" type="password" required autocomplete="current-password" />
          <button type="submit">Sign in</button>
        </form>
      </div>
    </Layout>
  );
}
