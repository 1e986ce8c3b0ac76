import { CsrfField, Field, Notice } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Badge, Done, FilterTabs, ListTable, numeric, Pager } from './console.lists.views.tsx';
import type { payoutDetail, payoutsPage } from './console.payouts.service.ts';
import { type ConsoleProgram, mayWrite } from './console.programs.service.ts';

/** Payouts: the list with `Create payout`, and one payout with its items, exports and settling. */

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

export const payoutFilters = [
  { value: '', label: 'All' },
  { value: 'pending', label: 'Pending' },
  { value: 'paid', label: 'Paid' },
  { value: 'cancelled', label: 'Cancelled' },
] as const;

type PayoutsList = Awaited<ReturnType<typeof payoutsPage>>;

export function PayoutsPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  filter: string;
  list: PayoutsList;
  page: number;
  currency: string;
  problem?: string | undefined;
  done?: string | undefined;
}) {
  const { program, list } = props;
  const base = `${program.base}/payouts`;
  return (
    <ConsoleLayout title="Payouts" user={props.user} csrf={props.csrf} program={program} section="payouts">
      <div class="card">
        <h1>Payouts</h1>
        {props.done ? <Done>{props.done}</Done> : null}
        {props.problem ? <Notice>{props.problem}</Notice> : null}
        {mayWrite(program.role) ? (
          <form method="post" action={base} class="toolbar" novalidate>
            <CsrfField token={props.csrf} />
            <Field
              name="currency"
              label="Currency"
              value={props.currency}
              maxLength={3}
              hint="Pays every partner whose approved commissions in this currency reach the payout minimum."
            />
            <button type="submit">Create payout</button>
          </form>
        ) : null}
        <FilterTabs label="Payout status" base={base} current={props.filter} tabs={payoutFilters} />
        <ListTable
          empty="No payouts here."
          columns={['Payout', 'Status', numeric('Total'), numeric('Partners'), 'Created']}
          rows={list.items}
          row={(payout) => (
            <tr key={payout.id}>
              <td data-label="Payout">
                <a href={`${base}/${payout.id}`}>{payout.id}</a>
              </td>
              <td data-label="Status">
                <Badge kind={payout.status}>{capitalized(payout.status)}</Badge>
              </td>
              <td data-label="Total" class="num">
                {payout.total}
              </td>
              <td data-label="Partners" class="num">
                {payout.partners}
              </td>
              <td data-label="Created">{payout.created}</td>
            </tr>
          )}
        />
        <Pager
          base={base}
          query={props.filter ? { status: props.filter } : {}}
          page={props.page}
          hasNext={list.hasNext}
        />
      </div>
    </ConsoleLayout>
  );
}

type Detail = NonNullable<Awaited<ReturnType<typeof payoutDetail>>>;

export function PayoutPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  payout: Detail;
  problem?: string | undefined;
  done?: string | undefined;
}) {
  const { program, payout } = props;
  const base = `${program.base}/payouts/${payout.id}`;
  return (
    <ConsoleLayout
      title={`Payout ${payout.id}`}
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="payouts"
    >
      <div class="card">
        <p>
          <a href={`${program.base}/payouts`}>All payouts</a>
        </p>
        <h1>Payout of {payout.total}</h1>
        {props.done ? <Done>{props.done}</Done> : null}
        {props.problem ? <Notice>{props.problem}</Notice> : null}
        <p>
          <Badge kind={payout.status}>{capitalized(payout.status)}</Badge>{' '}
          <span class="muted">
            made {payout.created}
            {payout.paid ? `, paid ${payout.paid}` : ''}
          </span>
        </p>
        <p class="actions">
          <a href={`${base}/export?format=paypal`}>Export for PayPal</a>
          <a href={`${base}/export?format=wise`}>Export for Wise</a>
          <a href={`${base}/export?format=csv`}>Export as CSV</a>
        </p>
        {payout.status === 'pending' && mayWrite(program.role) ? (
          <form method="post" action={`${base}/settle`} class="actions">
            <CsrfField token={props.csrf} />
            <button type="submit" name="action" value="mark-paid">
              Mark as paid
            </button>
            <button type="submit" name="action" value="cancel" class="secondary">
              Cancel
            </button>
          </form>
        ) : null}
      </div>
      <div class="card">
        <h2>Partners paid</h2>
        <div class="scroll">
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Partner</th>
                <th scope="col" class="num">
                  Amount
                </th>
                <th scope="col" class="num">
                  Commissions
                </th>
                <th scope="col">Method</th>
              </tr>
            </thead>
            <tbody>
              {payout.items.map((item) => (
                <tr key={item.email || item.partner}>
                  <td data-label="Partner">
                    {item.partner}
                    {item.email && item.email !== item.partner ? (
                      <>
                        <br />
                        <span class="muted">{item.email}</span>
                      </>
                    ) : null}
                  </td>
                  <td data-label="Amount" class="num">
                    {item.amount}
                  </td>
                  <td data-label="Commissions" class="num">
                    {item.commissions}
                  </td>
                  <td data-label="Method">{item.method}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {payout.more > 0 ? <p class="muted">And {payout.more} more partners: see the export.</p> : null}
      </div>
    </ConsoleLayout>
  );
}
