import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  Checkbox,
  CopyField,
  CsrfField,
  Field,
  formText,
  HONEYPOT,
  Honeypot,
  Notice,
} from '../../pages/forms.tsx';
import { Layout } from '../../pages/layout.tsx';
import {
  definePages,
  linkBase,
  pageDeps,
  pageNotFound,
  seeOther,
  sendPage,
  setSessionCookie,
} from '../../pages/plugin.tsx';
import {
  CHART_DAYS,
  changePassword,
  countryCodes,
  createCustomLink,
  currentPartner,
  getDashboard,
  getLeadPage,
  getPortalProgram,
  type LeadErrors,
  type LeadForm,
  type LeadFormField,
  moneyInWords,
  type PortalProgram,
  resetLinkUsable,
  resetPassword,
  SESSION_DAYS,
  type SignedInPartner,
  type SignUpErrors,
  type SignUpForm,
  sendPasswordReset,
  sendSignInLink,
  signIn,
  signInWithLink,
  signOut,
  signUp,
  submitLead,
  updateName,
  waitInWords,
} from './portal.service.ts';

/**
 * The partner portal's pages, `/p/{program public id}/…`: program page, sign-up, sign-in (password
 * or one-time link), password reset, dashboard and settings. Every form carries a CSRF token;
 * handlers read the form, call one service function and render.
 */

const SESSION_COOKIE = 'vouch_portal';
type Dashboard = Awaited<ReturnType<typeof getDashboard>>;
type Params = { program: string };

const hidden = { hide: true } as const;
const publicPage = { auth: 'public' } as const;

const base = (portal: PortalProgram) => `/p/${portal.publicId}`;

/** The signed-in header: where a partner can go, and the sign-out button (a POST with its token). */
function PortalNav(props: {
  portal: PortalProgram;
  csrf: string;
  current: 'dashboard' | 'settings' | 'leads';
}) {
  const here = (page: typeof props.current) => (props.current === page ? ('page' as const) : undefined);
  return (
    <nav class="portal" aria-label="Portal">
      <ul>
        <li>
          <a href={`${base(props.portal)}/dashboard`} aria-current={here('dashboard')}>
            Dashboard
          </a>
        </li>
        {props.portal.leadsPage ? (
          <li>
            <a href={`${base(props.portal)}/leads`} aria-current={here('leads')}>
              Leads
            </a>
          </li>
        ) : null}
        <li>
          <a href={`${base(props.portal)}/settings`} aria-current={here('settings')}>
            Settings
          </a>
        </li>
        <li>
          <form method="post" action={`${base(props.portal)}/sign-out`}>
            <CsrfField token={props.csrf} />
            <button type="submit" class="secondary">
              Sign out
            </button>
          </form>
        </li>
      </ul>
    </nav>
  );
}

function ProgramPage(props: { portal: PortalProgram }) {
  const { portal } = props;
  return (
    <Layout title={`${portal.name} partner program`} site={portal.name}>
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
            <a class="button" href={`${base(portal)}/sign-up`}>
              Sign up as a partner
            </a>
          ) : null}
          <a href={`${base(portal)}/sign-in`}>Sign in</a>
        </p>
      </div>
    </Layout>
  );
}

function SignUpPage(props: {
  portal: PortalProgram;
  csrf: string;
  values?: SignUpForm;
  errors?: SignUpErrors;
  taken?: boolean;
}) {
  const { portal } = props;
  const errors = props.errors ?? {};
  const count = Object.keys(errors).length;
  return (
    <Layout title="Sign up" site={portal.name}>
      <div class="card">
        <h1>Join the {portal.name} partner program</h1>
        <p class="lead">{portal.terms}</p>
        {props.taken ? (
          <Notice>
            This e-mail address already has a partner account. <a href={`${base(portal)}/sign-in`}>Sign in</a>{' '}
            or <a href={`${base(portal)}/forgot`}>reset your password</a>.
          </Notice>
        ) : null}
        {count > 0 ? (
          <Notice>Please correct {count === 1 ? 'the field' : `the ${count} fields`} marked below.</Notice>
        ) : null}
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
            label={`I accept the terms of the ${portal.name} partner program.`}
            checked={props.values?.terms}
            error={errors.terms}
          />
          <button type="submit">Create my partner account</button>
        </form>
        <p>
          Already a partner? <a href={`${base(portal)}/sign-in`}>Sign in</a>
        </p>
      </div>
    </Layout>
  );
}

function SignInPage(props: {
  portal: PortalProgram;
  csrf: string;
  email?: string;
  problem?: string;
  info?: string;
}) {
  const { portal } = props;
  return (
    <Layout title="Sign in" site={portal.name}>
      <div class="card">
        <h1>Sign in to the {portal.name} partner portal</h1>
        {props.info ? (
          <p class="success" role="status">
            {props.info}
          </p>
        ) : null}
        {props.problem ? <Notice>{props.problem}</Notice> : null}
        <form method="post" action={`${base(portal)}/sign-in`} novalidate>
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
          <a href={`${base(portal)}/forgot`}>Forgot your password?</a>
        </p>
        {portal.passwordless ? (
          <p>
            <a href={`${base(portal)}/sign-in-link`}>Sign in with a link by e-mail instead</a>
          </p>
        ) : null}
        {portal.registration ? (
          <p>
            Not a partner yet? <a href={`${base(portal)}/sign-up`}>Sign up</a>
          </p>
        ) : null}
      </div>
    </Layout>
  );
}

/** The form that asks for a link by e-mail (sign-in link or password reset), and its answer. */
function AskLinkPage(props: {
  portal: PortalProgram;
  csrf: string;
  purpose: 'sign_in' | 'reset';
  sent?: boolean;
}) {
  const { portal } = props;
  const title = props.purpose === 'sign_in' ? 'Sign in with a link' : 'Reset your password';
  return (
    <Layout title={title} site={portal.name}>
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
          <a href={`${base(portal)}/sign-in`}>Back to sign-in</a>
        </p>
      </div>
    </Layout>
  );
}

/** A link from an e-mail is used by a button, not by opening it: mail scanners open links too. */
function UseLinkPage(props: { portal: PortalProgram; csrf: string; expired?: boolean }) {
  const { portal } = props;
  return (
    <Layout title="Sign in" site={portal.name}>
      <div class="card">
        <h1>Sign in to {portal.name}</h1>
        {props.expired ? (
          <>
            <Notice>
              This sign-in link has expired or was already used. Links work once, for 15 minutes.
            </Notice>
            <p>
              <a href={`${base(portal)}/sign-in-link`}>Send me a new link</a>
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

function ResetPage(props: { portal: PortalProgram; csrf: string; expired?: boolean; problem?: string }) {
  const { portal } = props;
  return (
    <Layout title="Choose a new password" site={portal.name}>
      <div class="card">
        <h1>Choose a new password</h1>
        {props.expired ? (
          <>
            <Notice>This reset link has expired or was already used. Links work once, for 15 minutes.</Notice>
            <p>
              <a href={`${base(portal)}/forgot`}>Send me a new link</a>
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

function PendingPage(props: { portal: PortalProgram; partner: SignedInPartner; csrf: string }) {
  const { portal } = props;
  return (
    <Layout
      title="Pending review"
      site={portal.name}
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

function Amounts(props: { amounts: { currency: string; amount: number }[] }) {
  if (props.amounts.length === 0) return <>0</>;
  return (
    <ul>
      {props.amounts.map((a) => (
        <li key={a.currency}>{moneyInWords(a.amount, a.currency)}</li>
      ))}
    </ul>
  );
}

/** Clicks per day as bars: SVG drawn on the server, no script, with the numbers as a table too. */
function ClicksChart(props: { chart: Dashboard['chart'] }) {
  const { chart } = props;
  const max = Math.max(1, ...chart.map((d) => d.value));
  const width = 300;
  const height = 100;
  const slot = width / chart.length;
  const total = chart.reduce((sum, d) => sum + d.value, 0);
  return (
    <figure>
      <svg
        class="chart"
        viewBox={`0 0 ${width} ${height}`}
        preserveAspectRatio="none"
        role="img"
        aria-labelledby="chart-title"
      >
        <title id="chart-title">
          Clicks per day over the last {CHART_DAYS} days: {total} in all, at most {max} in a day.
        </title>
        <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} />
        {chart.map((d, i) => {
          const h = (d.value / max) * (height - 4);
          return <rect key={d.day} x={i * slot + slot * 0.15} y={height - h} width={slot * 0.7} height={h} />;
        })}
      </svg>
      <figcaption class="chart-axis">
        <span>{chart[0]?.day}</span>
        <span>{chart.at(-1)?.day}</span>
      </figcaption>
    </figure>
  );
}

const statusWords: Record<string, string> = {
  pending: 'Pending',
  approved: 'Approved',
  paid: 'Paid',
  denied: 'Denied',
  voided: 'Voided',
};

function DashboardPage(props: {
  portal: PortalProgram;
  partner: SignedInPartner;
  view: Dashboard;
  csrf: string;
  linkKey?: string;
  linkError?: string;
}) {
  const { portal, view } = props;
  const { figures } = view;
  return (
    <Layout
      title="Dashboard"
      site={portal.name}
      wide
      copyScript
      nav={<PortalNav portal={portal} csrf={props.csrf} current="dashboard" />}
    >
      <h1>Welcome, {props.partner.row.name ?? 'partner'}</h1>
      <section class="card" aria-labelledby="links-heading">
        <h2 id="links-heading">Your referral links</h2>
        <p class="muted">Share a link: visitors who sign up or buy through it are credited to you.</p>
        {figures.links.map((link, i) => (
          <CopyField
            key={link.key}
            id={`link-${i}`}
            url={link.url}
            label={link.isDefault ? 'Main link' : `Link “${link.key}”`}
          />
        ))}
        {portal.customLinks ? (
          <form method="post" action={`${base(portal)}/links`} novalidate>
            <CsrfField token={props.csrf} />
            <Field
              name="key"
              label="Add a link with your own key"
              hint="For example your name or a campaign: letters, digits, - and _ work best."
              value={props.linkKey}
              error={props.linkError}
            />
            <button type="submit" class="secondary">
              Add link
            </button>
          </form>
        ) : null}
      </section>
      <section class="card" aria-labelledby="figures-heading">
        <h2 id="figures-heading">Your figures</h2>
        <dl class="figures">
          <div>
            <dt>Clicks</dt>
            <dd>{figures.clicks}</dd>
          </div>
          <div>
            <dt>Signups</dt>
            <dd>{figures.signups}</dd>
          </div>
          <div>
            <dt>Paying customers</dt>
            <dd>{figures.paidAccounts}</dd>
          </div>
          <div>
            <dt>Revenue</dt>
            <dd>
              <Amounts amounts={figures.revenue} />
            </dd>
          </div>
          <div>
            <dt>Commissions pending</dt>
            <dd>
              <Amounts amounts={figures.commissions.pending} />
            </dd>
          </div>
          <div>
            <dt>Commissions approved</dt>
            <dd>
              <Amounts amounts={figures.commissions.approved} />
            </dd>
          </div>
          <div>
            <dt>Commissions paid</dt>
            <dd>
              <Amounts amounts={figures.commissions.paid} />
            </dd>
          </div>
        </dl>
        <h3>Clicks in the last {CHART_DAYS} days</h3>
        <ClicksChart chart={view.chart} />
      </section>
      <div class="grid2">
        <section class="card" aria-labelledby="customers-heading">
          <h2 id="customers-heading">Latest customers</h2>
          {view.customers.length === 0 ? (
            <p class="muted">No customers yet. Share your link to bring the first one.</p>
          ) : (
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Customer</th>
                    <th scope="col">Since</th>
                  </tr>
                </thead>
                <tbody>
                  {view.customers.map((c, i) => (
                    <tr key={i}>
                      <td>{c.name}</td>
                      <td>{c.since}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
        <section class="card" aria-labelledby="commissions-heading">
          <h2 id="commissions-heading">Latest commissions</h2>
          {view.commissions.length === 0 ? (
            <p class="muted">No commissions yet.</p>
          ) : (
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Date</th>
                    <th scope="col" class="num">
                      Amount
                    </th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {view.commissions.map((c) => (
                    <tr key={c.id}>
                      <td>{c.day}</td>
                      <td class="num">{moneyInWords(c.amount, c.currency)}</td>
                      <td>{statusWords[c.status] ?? c.status}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      </div>
    </Layout>
  );
}

function SettingsPage(props: {
  portal: PortalProgram;
  partner: SignedInPartner;
  csrf: string;
  nameErrors?: { name?: string; surname?: string };
  passwordProblem?: string;
  saved?: 'name' | 'password';
}) {
  const { portal, partner } = props;
  const errors = props.nameErrors ?? {};
  return (
    <Layout
      title="Settings"
      site={portal.name}
      nav={<PortalNav portal={portal} csrf={props.csrf} current="settings" />}
    >
      <h1>Settings</h1>
      {props.saved ? (
        <p class="success" role="status">
          {props.saved === 'name'
            ? 'Your name is saved.'
            : 'Your new password is saved. Other devices are signed out.'}
        </p>
      ) : null}
      <section class="card" aria-labelledby="name-heading">
        <h2 id="name-heading">Your name</h2>
        <form method="post" action={`${base(portal)}/settings/name`} novalidate>
          <CsrfField token={props.csrf} />
          <Field
            name="name"
            label="First name"
            autocomplete="given-name"
            required
            value={partner.row.name ?? ''}
            error={errors.name}
          />
          <Field
            name="surname"
            label="Last name"
            autocomplete="family-name"
            value={partner.row.surname ?? ''}
            error={errors.surname}
          />
          <button type="submit">Save name</button>
        </form>
      </section>
      <section class="card" aria-labelledby="password-heading">
        <h2 id="password-heading">Password</h2>
        <form method="post" action={`${base(portal)}/settings/password`} novalidate>
          {props.passwordProblem ? <Notice>{props.passwordProblem}</Notice> : null}
          <CsrfField token={props.csrf} />
          <Field
            name="current"
            type="password"
            label="Current password"
            autocomplete="current-password"
            required
          />
          <Field
            name="password"
            type="password"
            label="New password"
            autocomplete="new-password"
            hint="At least 8 characters, with an uppercase letter, a lowercase letter and a number."
            required
          />
          <button type="submit">Change password</button>
        </form>
      </section>
      <section class="card" aria-labelledby="payout-heading">
        <h2 id="payout-heading">Payouts</h2>
        <p>
          {partner.row.payout_method
            ? `Your payout method: ${partner.row.payout_method.replace('_', ' ')}.`
            : 'No payout method is set yet.'}{' '}
          Changing the payout method and details here is not built yet: ask {portal.name} to set them for you.
        </p>
      </section>
    </Layout>
  );
}

type LeadView = Awaited<ReturnType<typeof getLeadPage>>;

/** One question of the program's lead form, named `cfield-{id}`; its `text` is shown as plain text. */
function LeadQuestion(props: {
  field: LeadFormField;
  value: string | string[] | undefined;
  error?: string | undefined;
}) {
  const { field } = props;
  const id = `cfield-${field.id}`;
  const described = [field.description ? `${id}-hint` : '', props.error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  const aria = {
    'aria-invalid': props.error ? ('true' as const) : undefined,
    'aria-describedby': described || undefined,
  };
  const chosen = new Set(Array.isArray(props.value) ? props.value : props.value ? [props.value] : []);
  const text = typeof props.value === 'string' ? props.value : '';
  const hint = field.description ? (
    <span class="hint" id={`${id}-hint`}>
      {field.description}
    </span>
  ) : null;
  const error = props.error ? (
    <p class="error" id={`${id}-error`}>
      {props.error}
    </p>
  ) : null;
  const label = `${field.title}${field.required ? '' : ' (optional)'}`;
  // The setup's `text` is HTML for the API's own portals; here it is shown as plain text.
  const intro = field.text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (field.type === 'checkbox' || field.type === 'radio') {
    const kind = field.type;
    return (
      <fieldset class="field" {...aria}>
        <legend>{label}</legend>
        {intro ? <p class="muted">{intro}</p> : null}
        {hint}
        {field.options.map((option, i) => (
          <div class="check" key={option}>
            <input id={`${id}-${i}`} type={kind} name={id} value={option} checked={chosen.has(option)} />
            <label for={`${id}-${i}`}>{option}</label>
          </div>
        ))}
        {error}
      </fieldset>
    );
  }
  const choices =
    field.type === 'countries'
      ? [...countryCodes].sort()
      : field.type === 'select'
        ? field.options
        : undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {intro ? <span class="hint">{intro}</span> : null}
      {hint}
      {choices ? (
        <select id={id} name={id} required={field.required} {...aria}>
          <option value="">Choose…</option>
          {choices.map((choice) => (
            <option key={choice} value={choice} selected={chosen.has(choice)}>
              {choice}
            </option>
          ))}
        </select>
      ) : field.type === 'textarea' ? (
        <textarea id={id} name={id} rows={4} maxLength={10_000} required={field.required} {...aria}>
          {text}
        </textarea>
      ) : (
        <input
          id={id}
          name={id}
          type="text"
          maxLength={255}
          value={text}
          required={field.required}
          {...aria}
        />
      )}
      {error}
    </div>
  );
}

const leadStatusWords: Record<string, string> = {
  submitted: 'Submitted',
  converted: 'Converted',
  rejected: 'Rejected',
};

function LeadsPage(props: {
  portal: PortalProgram;
  view: LeadView;
  csrf: string;
  values?: LeadForm;
  errors?: LeadErrors;
  submitted?: boolean;
}) {
  const { portal, view } = props;
  const errors = props.errors ?? {};
  const count = Object.keys(errors).length;
  return (
    <Layout
      title="Leads"
      site={portal.name}
      nav={<PortalNav portal={portal} csrf={props.csrf} current="leads" />}
    >
      <h1>Leads</h1>
      <section class="card" aria-labelledby="lead-form-heading">
        <h2 id="lead-form-heading">Submit a lead</h2>
        {props.submitted ? (
          <p class="success" role="status">
            Thank you: your lead is submitted. {portal.name} will review it.
          </p>
        ) : null}
        {!view.enabled ? (
          <p class="muted">{portal.name} does not take leads at the moment.</p>
        ) : (
          <form method="post" novalidate>
            {count > 0 ? (
              <Notice>
                Please correct {count === 1 ? 'the field' : `the ${count} fields`} marked below.
              </Notice>
            ) : null}
            <CsrfField token={props.csrf} />
            <Field name="name" label="Name" required value={props.values?.name} error={errors.name} />
            <Field
              name="email"
              type="email"
              label="E-mail address"
              required
              value={props.values?.email}
              error={errors.email}
            />
            {view.fields.map((field) => (
              <LeadQuestion
                key={field.id}
                field={field}
                value={props.values?.answers[String(field.id)]}
                error={errors[String(field.id)]}
              />
            ))}
            <button type="submit">Submit lead</button>
          </form>
        )}
      </section>
      <section class="card" aria-labelledby="your-leads-heading">
        <h2 id="your-leads-heading">Your leads</h2>
        {view.leads.length === 0 ? (
          <p class="muted">No leads yet.</p>
        ) : (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Date</th>
                  <th scope="col">Lead</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {view.leads.map((lead) => (
                  <tr key={lead.id}>
                    <td>{lead.day}</td>
                    <td>
                      {lead.name}
                      <br />
                      <span class="muted">{lead.email}</span>
                    </td>
                    <td>{leadStatusWords[lead.status] ?? lead.status}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Layout>
  );
}

/** The program of the URL, or the 404 page. */
async function portalOf(request: FastifyRequest<{ Params: Params }>) {
  const portal = await getPortalProgram(pageDeps(request), request.params.program);
  if (!portal) throw pageNotFound();
  return portal;
}

const setSession = (request: FastifyRequest, reply: FastifyReply, portal: PortalProgram, token: string) =>
  setSessionCookie(request, reply, {
    name: SESSION_COOKIE,
    value: token,
    path: base(portal),
    days: SESSION_DAYS,
  });

const clearSession = (reply: FastifyReply, portal: PortalProgram) =>
  reply.clearCookie(SESSION_COOKIE, { path: base(portal) });

const sessionToken = (request: FastifyRequest) => request.cookies[SESSION_COOKIE];

/** The signed-in partner; otherwise the browser is sent to the sign-in page. */
async function signedIn(
  request: FastifyRequest<{ Params: Params }>,
  reply: FastifyReply,
  portal: PortalProgram,
) {
  const partner = await currentPartner(portal, sessionToken(request));
  if (!partner) {
    if (sessionToken(request)) clearSession(reply, portal);
    seeOther(reply, `${base(portal)}/sign-in`);
  }
  return partner;
}

/** A form field as typed (not trimmed): passwords. */
const rawText = (body: unknown, name: string) => {
  const value =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
};

/** Every value of a repeated form field (ticked checkboxes), trimmed. */
const formList = (body: unknown, name: string): string[] => {
  const value =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  const values = Array.isArray(value) ? value : [value];
  return values
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.trim())
    .filter(Boolean);
};

const leadForm = (body: unknown, fields: readonly LeadFormField[]): LeadForm => ({
  name: formText(body, 'name'),
  email: formText(body, 'email'),
  answers: Object.fromEntries(
    fields.map((field) => {
      const name = `cfield-${field.id}`;
      return [String(field.id), field.type === 'checkbox' ? formList(body, name) : formText(body, name)];
    }),
  ),
});

const signUpForm = (body: unknown): SignUpForm => ({
  name: formText(body, 'name'),
  surname: formText(body, 'surname'),
  email: formText(body, 'email'),
  // Passwords are taken as typed: spaces count.
  password: rawText(body, 'password'),
  terms: formText(body, 'terms') !== '',
});

/** `/p/{program public id}/…`: the partner portal. */
export const partnerPortalPages = definePages('/p', async (app: FastifyInstance) => {
  const page = { config: publicPage, schema: hidden };
  const form = { ...page, preHandler: app.csrfProtection };

  app.get<{ Params: Params }>('/:program', {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      if (!portal.programPage) return seeOther(reply, `${base(portal)}/sign-in`);
      return sendPage(reply, 200, <ProgramPage portal={portal} />);
    },
  });

  app.get<{ Params: Params }>('/:program/sign-up', {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      if (!portal.registration) throw pageNotFound();
      return sendPage(reply, 200, <SignUpPage portal={portal} csrf={reply.generateCsrf()} />);
    },
  });

  app.post<{ Params: Params }>('/:program/sign-up', {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      if (!portal.registration) throw pageNotFound();
      const values = signUpForm(request.body);
      // A bot filled the field people never see: nothing is stored.
      if (formText(request.body, HONEYPOT) !== '') return seeOther(reply, `${base(portal)}/sign-in`);
      const outcome = await signUp(portal, values);
      if (outcome.kind === 'signed_up') {
        setSession(request, reply, portal, outcome.token);
        return seeOther(reply, `${base(portal)}/dashboard`);
      }
      const props = outcome.kind === 'invalid' ? { errors: outcome.errors } : { taken: true };
      return sendPage(
        reply,
        422,
        <SignUpPage portal={portal} csrf={reply.generateCsrf()} values={values} {...props} />,
      );
    },
  });

  app.get<{ Params: Params }>('/:program/sign-in', {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      if (await currentPartner(portal, sessionToken(request)))
        return seeOther(reply, `${base(portal)}/dashboard`);
      return sendPage(reply, 200, <SignInPage portal={portal} csrf={reply.generateCsrf()} />);
    },
  });

  app.post<{ Params: Params }>('/:program/sign-in', {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const email = formText(request.body, 'email');
      const outcome = await signIn(
        portal,
        { email, password: rawText(request.body, 'password') },
        request.ip,
      );
      if (outcome.kind === 'signed_in') {
        setSession(request, reply, portal, outcome.token);
        return seeOther(reply, `${base(portal)}/dashboard`);
      }
      const problem =
        outcome.kind === 'wait'
          ? `Too many failed sign-ins. Please try again ${waitInWords(outcome.seconds)}, or reset your password.`
          : 'The e-mail address or the password is not right.';
      const status = outcome.kind === 'wait' ? 429 : 401;
      return sendPage(
        reply,
        status,
        <SignInPage
          portal={portal}
          csrf={reply.generateCsrf()}
          email={email.slice(0, 255)}
          problem={problem}
        />,
      );
    },
  });

  app.post<{ Params: Params }>('/:program/sign-out', {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      await signOut(portal, sessionToken(request));
      clearSession(reply, portal);
      return sendPage(
        reply,
        200,
        <SignInPage portal={portal} csrf={reply.generateCsrf()} info="You are signed out." />,
      );
    },
  });

  for (const purpose of ['sign_in', 'reset'] as const) {
    const path = purpose === 'sign_in' ? '/:program/sign-in-link' : '/:program/forgot';
    const allowed = (portal: PortalProgram) => purpose === 'reset' || portal.passwordless;
    app.get<{ Params: Params }>(path, {
      ...page,
      handler: async (request, reply) => {
        const portal = await portalOf(request);
        if (!allowed(portal)) throw pageNotFound();
        return sendPage(
          reply,
          200,
          <AskLinkPage portal={portal} csrf={reply.generateCsrf()} purpose={purpose} />,
        );
      },
    });
    app.post<{ Params: Params }>(path, {
      ...form,
      handler: async (request, reply) => {
        const portal = await portalOf(request);
        if (!allowed(portal)) throw pageNotFound();
        const email = formText(request.body, 'email');
        const send = purpose === 'sign_in' ? sendSignInLink : sendPasswordReset;
        await send(portal, email, linkBase(request));
        return sendPage(
          reply,
          200,
          <AskLinkPage portal={portal} csrf={reply.generateCsrf()} purpose={purpose} sent />,
        );
      },
    });
  }

  type TokenParams = Params & { token: string };
  app.get<{ Params: TokenParams }>('/:program/link/:token', {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      return sendPage(reply, 200, <UseLinkPage portal={portal} csrf={reply.generateCsrf()} />);
    },
  });

  app.post<{ Params: TokenParams }>('/:program/link/:token', {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const token = await signInWithLink(portal, request.params.token);
      if (!token)
        return sendPage(reply, 410, <UseLinkPage portal={portal} csrf={reply.generateCsrf()} expired />);
      setSession(request, reply, portal, token);
      return seeOther(reply, `${base(portal)}/dashboard`);
    },
  });

  app.get<{ Params: TokenParams }>('/:program/reset/:token', {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const usable = await resetLinkUsable(portal, request.params.token);
      return sendPage(
        reply,
        usable ? 200 : 410,
        <ResetPage portal={portal} csrf={reply.generateCsrf()} expired={!usable} />,
      );
    },
  });

  app.post<{ Params: TokenParams }>('/:program/reset/:token', {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const outcome = await resetPassword(portal, request.params.token, rawText(request.body, 'password'));
      if (outcome.kind === 'changed') {
        setSession(request, reply, portal, outcome.token);
        return seeOther(reply, `${base(portal)}/dashboard`);
      }
      const props = outcome.kind === 'expired' ? { expired: true } : { problem: outcome.error };
      return sendPage(
        reply,
        outcome.kind === 'expired' ? 410 : 422,
        <ResetPage portal={portal} csrf={reply.generateCsrf()} {...props} />,
      );
    },
  });

  app.get<{ Params: Params }>('/:program/dashboard', {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const partner = await signedIn(request, reply, portal);
      if (!partner) return reply;
      const csrf = reply.generateCsrf();
      if (partner.pending)
        return sendPage(reply, 200, <PendingPage portal={portal} partner={partner} csrf={csrf} />);
      const view = await getDashboard(portal, partner);
      return sendPage(
        reply,
        200,
        <DashboardPage portal={portal} partner={partner} view={view} csrf={csrf} />,
      );
    },
  });

  app.get<{ Params: Params }>('/:program/settings', {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const partner = await signedIn(request, reply, portal);
      if (!partner) return reply;
      return sendPage(
        reply,
        200,
        <SettingsPage portal={portal} partner={partner} csrf={reply.generateCsrf()} />,
      );
    },
  });

  app.post<{ Params: Params }>('/:program/settings/name', {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const partner = await signedIn(request, reply, portal);
      if (!partner) return reply;
      const errors = await updateName(portal, partner, {
        name: formText(request.body, 'name'),
        surname: formText(request.body, 'surname'),
      });
      const now = (await currentPartner(portal, sessionToken(request))) ?? partner;
      const props = errors ? { nameErrors: errors } : { saved: 'name' as const };
      return sendPage(
        reply,
        errors ? 422 : 200,
        <SettingsPage portal={portal} partner={now} csrf={reply.generateCsrf()} {...props} />,
      );
    },
  });

  app.post<{ Params: Params }>('/:program/settings/password', {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const partner = await signedIn(request, reply, portal);
      if (!partner) return reply;
      const outcome = await changePassword(portal, partner, {
        current: rawText(request.body, 'current'),
        password: rawText(request.body, 'password'),
      });
      if (outcome.kind === 'changed') {
        setSession(request, reply, portal, outcome.token);
        const now = (await currentPartner(portal, outcome.token)) ?? partner;
        return sendPage(
          reply,
          200,
          <SettingsPage portal={portal} partner={now} csrf={reply.generateCsrf()} saved="password" />,
        );
      }
      const problem = outcome.kind === 'invalid' ? outcome.error : 'The password could not be changed.';
      return sendPage(
        reply,
        422,
        <SettingsPage
          portal={portal}
          partner={partner}
          csrf={reply.generateCsrf()}
          passwordProblem={problem}
        />,
      );
    },
  });
  /** The lead form page: signed in, approved, and only with `leads_page_enabled`. */
  async function leadsPartner(request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
    const portal = await portalOf(request);
    if (!portal.leadsPage) throw pageNotFound();
    const partner = await signedIn(request, reply, portal);
    if (partner?.pending) {
      seeOther(reply, `${base(portal)}/dashboard`);
      return undefined;
    }
    return partner ? { portal, partner } : undefined;
  }

  app.get<{ Params: Params }>('/:program/leads', {
    ...page,
    handler: async (request, reply) => {
      const found = await leadsPartner(request, reply);
      if (!found) return reply;
      const view = await getLeadPage(found.portal, found.partner);
      return sendPage(
        reply,
        200,
        <LeadsPage portal={found.portal} view={view} csrf={reply.generateCsrf()} />,
      );
    },
  });

  app.post<{ Params: Params }>('/:program/leads', {
    ...form,
    handler: async (request, reply) => {
      const found = await leadsPartner(request, reply);
      if (!found) return reply;
      const before = await getLeadPage(found.portal, found.partner);
      const values = leadForm(request.body, before.fields);
      const outcome = await submitLead(found.portal, found.partner, values);
      const view = outcome.kind === 'submitted' ? await getLeadPage(found.portal, found.partner) : before;
      const csrf = reply.generateCsrf();
      if (outcome.kind === 'invalid')
        return sendPage(
          reply,
          422,
          <LeadsPage portal={found.portal} view={view} csrf={csrf} values={values} errors={outcome.errors} />,
        );
      if (outcome.kind === 'disabled')
        return sendPage(
          reply,
          403,
          <LeadsPage portal={found.portal} view={{ ...view, enabled: false }} csrf={csrf} />,
        );
      return sendPage(reply, 200, <LeadsPage portal={found.portal} view={view} csrf={csrf} submitted />);
    },
  });
  app.post<{ Params: Params }>('/:program/links', {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      if (!portal.customLinks) throw pageNotFound();
      const partner = await signedIn(request, reply, portal);
      if (!partner) return reply;
      if (partner.pending) return seeOther(reply, `${base(portal)}/dashboard`);
      const key = formText(request.body, 'key');
      const problem = await createCustomLink(portal, partner, key);
      if (!problem) return seeOther(reply, `${base(portal)}/dashboard`);
      const view = await getDashboard(portal, partner);
      return sendPage(
        reply,
        422,
        <DashboardPage
          portal={portal}
          partner={partner}
          view={view}
          csrf={reply.generateCsrf()}
          linkKey={key.slice(0, 255)}
          linkError={problem}
        />,
      );
    },
  });
});
