import { BarChart } from '../../pages/chart.tsx';
import { CopyField, CsrfField, Field, Notice } from '../../pages/forms.tsx';
import { documentShell, Layout } from '../../pages/layout.tsx';
import { renderPart } from '../../pages/rendered.tsx';
import { CHART_DAYS } from './portal.dashboard.service.ts';
import { type PayoutErrors, type PayoutForm, payoutOf } from './portal.payout.service.ts';
import { PayoutSection } from './portal.payout.views.tsx';
import { moneyInWords, type PortalProgram, type SignedInPartner } from './portal.service.ts';
import { type Dashboard, PortalNav } from './portal.shared.views.tsx';

/** The signed-in partner's dashboard (figures, chart, links, latest rows) and settings. */

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

const statusWords: Record<string, string> = {
  pending: 'Pending',
  in_review: 'In review',
  approved: 'Approved',
  paid: 'Paid',
  denied: 'Denied',
  voided: 'Voided',
};

type DashboardProps = {
  portal: PortalProgram;
  partner: SignedInPartner;
  view: Dashboard;
  csrf: string;
  linkKey?: string;
  linkError?: string;
};

const dashboardLayout = (portal: PortalProgram, csrf: string) => ({
  title: 'Dashboard',
  brand: portal.brand,
  wide: true,
  copyScript: true,
  nav: <PortalNav portal={portal} csrf={csrf} current="dashboard" />,
});

export function DashboardPage(props: DashboardProps) {
  return (
    <Layout {...dashboardLayout(props.portal, props.csrf)}>
      <DashboardContent {...props} />
    </Layout>
  );
}

/** Where a shell's CSRF token goes; a NUL never comes out of a rendered page's own text. */
const CSRF_PLACE = '\u0000csrf\u0000';

/** The dashboard's layout of each portal (the object is renewed whenever its program is read again). */
const dashboardShells = new WeakMap<PortalProgram, { before: string; after: string }>();

const escapeAttribute = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The dashboard's whole document, as `sendPage(<DashboardPage … />)` renders it: the layout around
 * it (the program's name, the navigation) is rendered once per portal and reused with this
 * request's CSRF token; only the partner's own content is rendered per view.
 */
export function dashboardDocument(props: DashboardProps): string {
  let shell = dashboardShells.get(props.portal);
  if (!shell) {
    shell = documentShell(dashboardLayout(props.portal, CSRF_PLACE));
    dashboardShells.set(props.portal, shell);
  }
  return (
    shell.before.replace(CSRF_PLACE, escapeAttribute(props.csrf)) +
    renderPart(<DashboardContent {...props} />) +
    shell.after
  );
}

function DashboardContent(props: DashboardProps) {
  const { portal, view } = props;
  const { figures } = view;
  return (
    <>
      <h1>Welcome, {props.partner.row.name ?? 'partner'}</h1>
      <section class="card" aria-labelledby="links-heading">
        <h2 id="links-heading">Your referral links</h2>
        <p class="muted">Share a link: visitors who sign up or buy through it are credited to you.</p>
        {/* Vouch's own link counts every click; the website's `?aff=` link only where the script runs. */}
        {figures.links.map((link, i) => (
          <CopyField
            key={link.key}
            id={`link-${i}`}
            url={link.trackingUrl}
            label={link.isDefault ? 'Main link' : `Link “${link.key}”`}
          />
        ))}
        {figures.links
          .filter((link) => link.isDefault)
          .map((link) => (
            <CopyField
              key={`site-${link.key}`}
              id="link-site"
              url={link.url}
              label="Direct link to the website (counts where the site runs the Vouch script)"
            />
          ))}
        {portal.customLinks ? (
          <form method="post" action={`${portal.base}/links`} novalidate>
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
        <BarChart
          id="clicks"
          title={`Clicks per day, last ${CHART_DAYS} days`}
          points={view.chart.map((d) => ({ date: d.day, value: d.value }))}
        />
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
        <DatedAmounts
          id="commissions-heading"
          title="Latest commissions"
          empty="No commissions yet."
          rows={view.commissions.map((c) => ({ ...c, status: statusWords[c.status] ?? c.status }))}
        />
      </div>
      <DatedAmounts
        id="payouts-heading"
        title="Latest payouts"
        empty="No payouts yet. Approved commissions are paid out in the program's next payout."
        rows={view.payouts.map((p) => ({ ...p, status: payoutStatusWords[p.status] }))}
      />
    </>
  );
}

const payoutStatusWords = { pending: 'On its way', paid: 'Paid', cancelled: 'Cancelled' } as const;

/** A card of dated amounts with their status in words (the latest commissions, the latest payouts). */
function DatedAmounts(props: {
  id: string;
  title: string;
  empty: string;
  rows: readonly { id: number | string; day: string; amount: number; currency: string; status: string }[];
}) {
  return (
    <section class="card" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.rows.length === 0 ? (
        <p class="muted">{props.empty}</p>
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
              {props.rows.map((row) => (
                <tr key={row.id}>
                  <td>{row.day}</td>
                  <td class="num">{moneyInWords(row.amount, row.currency)}</td>
                  <td>{row.status}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

const savedWords = {
  name: 'Your name is saved.',
  password: 'Your new password is saved. Other devices are signed out.',
  payout: 'Your payout details are saved.',
} as const;

export function SettingsPage(props: {
  portal: PortalProgram;
  partner: SignedInPartner;
  csrf: string;
  nameErrors?: { name?: string; surname?: string };
  passwordProblem?: string;
  payoutErrors?: PayoutErrors;
  /** What the partner sent, shown again with its errors; else the stored method and fields. */
  payoutValues?: PayoutForm;
  saved?: 'name' | 'password' | 'payout';
  /** The payout method asked for in the query (choosing a method reloads the page). */
  payoutMethod?: string | undefined;
}) {
  const { portal, partner } = props;
  const errors = props.nameErrors ?? {};
  const payout = props.payoutValues ?? payoutOf(partner);
  const payoutErrors = props.payoutErrors ?? {};
  return (
    <Layout
      title="Settings"
      brand={portal.brand}
      nav={<PortalNav portal={portal} csrf={props.csrf} current="settings" />}
    >
      <h1>Settings</h1>
      {props.saved ? (
        <p class="success" role="status">
          {savedWords[props.saved]}
        </p>
      ) : null}
      <section class="card" aria-labelledby="name-heading">
        <h2 id="name-heading">Your name</h2>
        <form method="post" action={`${portal.base}/settings/name`} novalidate>
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
        <form method="post" action={`${portal.base}/settings/password`} novalidate>
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
      <PayoutSection
        portal={portal}
        csrf={props.csrf}
        payout={payout}
        errors={payoutErrors}
        chosen={props.payoutMethod}
      />
    </Layout>
  );
}
