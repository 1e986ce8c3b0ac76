import { Checkbox, CsrfField, Field, FieldsToCorrect, Honeypot, Notice } from '../../pages/forms.tsx';
import { Layout } from '../../pages/layout.tsx';
import type { SignUpErrors, SignUpForm } from './portal.accounts.service.ts';
import type { Brand, PortalProgram, SignedInPartner } from './portal.service.ts';
import { PortalNav } from './portal.shared.views.tsx';

/** The pages before a partner is in: program page, sign-up, sign-in, e-mailed links, reset, pending. */

export function ProgramPage(props: { portal: PortalProgram }) {
  const { portal } = props;
  return (
    <Layout title={`${portal.name} partner program`} brand={portal.brand}>
      <div class="card">
        <h1>Become a partner of {portal.name}</h1>
        {portal.website ? (
          <p class="lead">
            Recommend <a href={portal.website}>{portal.website.replace(/^https?:\/\//, '')}</a> and earn a
            commission on every customer you bring.
          </p>
        ) : null}
        <h2>What you earn</h2>
        <p>{portal.terms}</p>
        <p>
          Visitors you send are remembered for {portal.cookieLifetimeDays}{' '}
          {portal.cookieLifetimeDays === 1 ? 'day' : 'days'}.
        </p>
        <p class="actions">
          {portal.registration ? (
            <a class="button" href={`${portal.base}/sign-up`}>
              Sign up as a partner
            </a>
          ) : null}
          <a href={`${portal.base}/sign-in`}>Sign in</a>
        </p>
      </div>
    </Layout>
  );
}

export function SignUpPage(props: {
  portal: PortalProgram;
  csrf: string;
  values?: SignUpForm;
  errors?: SignUpErrors;
  taken?: boolean;
}) {
  const { portal } = props;
  const errors = props.errors ?? {};
  return (
    <Layout title="Sign up" brand={portal.brand}>
      <div class="card">
        <h1>Join the {portal.name} partner program</h1>
        <p class="lead">{portal.terms}</p>
        {props.taken ? (
          <Notice>
            This e-mail address already has a partner account. <a href={`${portal.base}/sign-in`}>Sign in</a>{' '}
            or <a href={`${portal.base}/forgot`}>reset your password</a>.
          </Notice>
        ) : null}
        <FieldsToCorrect errors={errors} />
        <form method="post" novalidate>
          <CsrfField token={props.csrf} />
          <Honeypot />
          <Field
            name="name"
            label="First name"
            autocomplete="given-name"
            required
            value={props.values?.name}
            error={errors.name}
          />
          <Field
            name="surname"
            label="Last name (optional)"
            autocomplete="family-name"
            value={props.values?.surname}
            error={errors.surname}
          />
          <Field
            name="email"
            type="email"
            label="E-mail address"
            autocomplete="email"
            required
            value={props.values?.email}
            error={errors.email}
          />
          <Field
            name="password"
            type="password"
            label="Password"
            autocomplete="new-password"
            hint="At least 8 characters, with an uppercase letter, a lowercase letter and a number."
            required
            error={errors.password}
          />
          <Checkbox
            name="terms"
            label={
              portal.brand.termsUrl ? (
                <>
                  I accept the <a href={portal.brand.termsUrl}>terms of the {portal.name} partner program</a>.
                </>
              ) : (
                `I accept the terms of the ${portal.name} partner program.`
              )
            }
            checked={props.values?.terms}
            error={errors.terms}
          />
          <button type="submit">Create my partner account</button>
        </form>
        <p>
          Already a partner? <a href={`${portal.base}/sign-in`}>Sign in</a>
        </p>
      </div>
    </Layout>
  );
}

export function SignInPage(props: {
  portal: PortalProgram;
  csrf: string;
  email?: string;
  problem?: string;
  info?: string;
}) {
  const { portal } = props;
  return (
    <Layout title="Sign in" brand={portal.brand}>
      <div class="card">
        <h1>Sign in to the {portal.name} partner portal</h1>
        {props.info ? (
          <p class="success" role="status">
            {props.info}
          </p>
        ) : null}
        {props.problem ? <Notice>{props.problem}</Notice> : null}
        <form method="post" action={`${portal.base}/sign-in`} novalidate>
          <CsrfField token={props.csrf} />
          <Field
            name="email"
            type="email"
            label="E-mail address"
            autocomplete="email"
            required
            value={props.email}
          />
          <Field name="password" type="password" label="Password" autocomplete="current-password" required />
          <button type="submit">Sign in</button>
        </form>
        <p>
          <a href={`${portal.base}/forgot`}>Forgot your password?</a>
        </p>
        {portal.passwordless ? (
          <p>
            <a href={`${portal.base}/sign-in-link`}>Sign in with a link by e-mail instead</a>
          </p>
        ) : null}
        {portal.registration ? (
          <p>
            Not a partner yet? <a href={`${portal.base}/sign-up`}>Sign up</a>
          </p>
        ) : null}
      </div>
    </Layout>
  );
}

/** The form that asks for a link by e-mail (sign-in link or password reset), and its answer. */
export function AskLinkPage(props: {
  portal: PortalProgram;
  csrf: string;
  purpose: 'sign_in' | 'reset';
  sent?: boolean;
}) {
  const { portal } = props;
  const title = props.purpose === 'sign_in' ? 'Sign in with a link' : 'Reset your password';
  return (
    <Layout title={title} brand={portal.brand}>
      <div class="card">
        <h1>{title}</h1>
        {props.sent ? (
          <p class="success" role="status">
            If this address belongs to a partner of {portal.name}, we sent it a link. It works once, for 15
            minutes.
          </p>
        ) : (
          <form method="post" novalidate>
            <p class="lead">Enter your e-mail address and we will send you a link.</p>
            <CsrfField token={props.csrf} />
            <Field name="email" type="email" label="E-mail address" autocomplete="email" required />
            <button type="submit">Send the link</button>
          </form>
        )}
        <p>
          <a href={`${portal.base}/sign-in`}>Back to sign-in</a>
        </p>
      </div>
    </Layout>
  );
}

/**
 * A link from an e-mail is used by a button, not by opening it: mail scanners open links too.
 * Shared by the partner and the customer portal: `newLink` is where a fresh link is asked for.
 */
export function UseLinkPage(props: { site: Brand; newLink: string; csrf: string; expired?: boolean }) {
  return (
    <Layout title="Sign in" brand={props.site}>
      <div class="card">
        <h1>Sign in to {props.site.name}</h1>
        {props.expired ? (
          <>
            <Notice>
              This sign-in link has expired or was already used. Links work once, for 15 minutes.
            </Notice>
            <p>
              <a href={props.newLink}>Send me a new link</a>
            </p>
          </>
        ) : (
          <form method="post" novalidate>
            <CsrfField token={props.csrf} />
            <button type="submit">Sign in now</button>
          </form>
        )}
      </div>
    </Layout>
  );
}

export function ResetPage(props: {
  portal: PortalProgram;
  csrf: string;
  expired?: boolean;
  problem?: string;
}) {
  const { portal } = props;
  return (
    <Layout title="Choose a new password" brand={portal.brand}>
      <div class="card">
        <h1>Choose a new password</h1>
        {props.expired ? (
          <>
            <Notice>This reset link has expired or was already used. Links work once, for 15 minutes.</Notice>
            <p>
              <a href={`${portal.base}/forgot`}>Send me a new link</a>
            </p>
          </>
        ) : (
          <form method="post" novalidate>
            {props.problem ? <Notice>{props.problem}</Notice> : null}
            <CsrfField token={props.csrf} />
            <Field
              name="password"
              type="password"
              label="New password"
              autocomplete="new-password"
              hint="At least 8 characters, with an uppercase letter, a lowercase letter and a number."
              required
              error={props.problem}
            />
            <button type="submit">Save and sign in</button>
          </form>
        )}
      </div>
    </Layout>
  );
}

export function PendingPage(props: { portal: PortalProgram; partner: SignedInPartner; csrf: string }) {
  const { portal } = props;
  return (
    <Layout
      title="Pending review"
      brand={portal.brand}
      nav={<PortalNav portal={portal} csrf={props.csrf} current="dashboard" />}
    >
      <div class="card">
        <h1>Thank you, {props.partner.row.name ?? 'partner'}!</h1>
        <p class="success" role="status">
          Your application is pending review. {portal.name} will look at it soon; once you are approved, your
          links and figures appear here.
        </p>
      </div>
    </Layout>
  );
}
