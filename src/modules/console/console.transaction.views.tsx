import { CsrfField, Field, FieldsToCorrect } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Badge, Done, ListTable, numeric } from './console.lists.views.tsx';
import { type ConsoleProgram, mayWrite } from './console.programs.service.ts';
import type { TransactionDetail } from './console.sales.service.ts';

/** One transaction: its amount, what was refunded, the rewards it made, and the `Refund` form. */

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.replaceAll('_', ' ').slice(1);

export function TransactionPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  sale: TransactionDetail;
  amount?: string;
  errors?: Record<string, string>;
  done?: string | undefined;
}) {
  const { program, sale } = props;
  const errors = props.errors ?? {};
  const base = `${program.base}/transactions/${encodeURIComponent(sale.key)}`;
  return (
    <ConsoleLayout
      title={`Transaction ${sale.key}`}
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="transactions"
    >
      <div class="card">
        <p>
          <a href={`${program.base}/transactions`}>All transactions</a>
        </p>
        <h1>Transaction {sale.key}</h1>
        {props.done ? <Done>{props.done}</Done> : null}
        <FieldsToCorrect errors={errors} />
        <dl class="figures">
          <div>
            <dt>Amount</dt>
            <dd>{sale.amount}</dd>
          </div>
          <div>
            <dt>Refunded</dt>
            <dd>{sale.refunded || 'Nothing'}</dd>
          </div>
          <div>
            <dt>Customer</dt>
            <dd>{sale.customer || '—'}</dd>
          </div>
          <div>
            <dt>Date</dt>
            <dd>{sale.created}</dd>
          </div>
        </dl>
        {sale.archived ? <p class="muted">This transaction is archived.</p> : null}
        {mayWrite(program.role) && sale.left > 0 ? (
          <form method="post" action={`${base}/refund`} class="toolbar" novalidate>
            <CsrfField token={props.csrf} />
            <Field
              name="amount"
              label="Amount to refund"
              value={props.amount ?? ''}
              error={errors.amount}
              maxLength={32}
              hint={`At most ${sale.left}${sale.units ? ` ${sale.units}` : ''}; empty refunds all that is left.`}
            />
            <button type="submit">Refund</button>
          </form>
        ) : null}
      </div>
      <div class="card">
        <h2>Rewards</h2>
        <ListTable
          empty="This transaction made no rewards."
          columns={['For', numeric('Amount'), 'Status']}
          rows={sale.rewards}
          row={(reward) => (
            <tr key={reward.id}>
              <td data-label="For">{reward.to}</td>
              <td data-label="Amount" class="num">
                {reward.amount}
              </td>
              <td data-label="Status">
                <Badge kind={reward.status}>{capitalized(reward.status)}</Badge>
              </td>
            </tr>
          )}
        />
      </div>
    </ConsoleLayout>
  );
}
