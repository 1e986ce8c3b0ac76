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
        <p>
          <a href="/admin/forgot">Forgot your password?</a>
        </p>
      </div>
    </Layout>
  );
}

export function ForgotPage(props: { csrf: string; sent?: boolean }) {
  return (
    <Layout title="Forgot your password" site="Vouch console">
      <div class="card">
        <h1>Reset your password</h1>
        {props.sent ? (
          <p class="success" role="status">
            If this address has a console account, a link to choose a new password is on its way. It works
            once, for 15 minutes.
          </p>
        ) : null}
        <form method="post" novalidate>
          <CsrfField token={props.csrf} />
          <Field name="email" label="Email" type="email" required autocomplete="email" />
          <button type="submit">Send me a link</button>
        </form>
        <p>
          <a href="/admin/sign-in">Back to sign-in</a>
        </p>
      </div>
    </Layout>
  );
}

export function ResetPage(props: { csrf: string; usable: boolean; error?: string | undefined }) {
  return (
    <Layout title="Choose a new password" site="Vouch console">
      <div class="card">
        {props.usable ? (
          <>
            <h1>Choose a new password</h1>
            <form method="post" novalidate>
              <CsrfField token={props.csrf} />
              <Field
                name="password"
                label="New password"
                type="password"
                required
                autocomplete="new-password"
                hint="At least 8 characters, with a lowercase and an uppercase letter and a digit."
                error={props.error}
              />
              <button type="submit">Save the password</button>
            </form>
          </>
        ) : (
          <>
            <h1>This link cannot be used</h1>
            <p>
              It was used already or has expired. <a href="/admin/forgot">Ask for a new one</a>.
            </p>
          </>
        )}
      </div>
    </Layout>
  );
}
