import { CsrfField, Notice } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Badge, Done, FilterTabs, Pager } from './console.lists.views.tsx';
import type { ConsoleProgram } from './console.programs.service.ts';
import { mayWrite } from './console.programs.service.ts';

/** The commissions of an affiliate program, by status, approved or denied one selection at a time. */

export const commissionFilters = [
  { value: '', label: 'All' },
  { value: 'pending', label: 'Pending' },
  { value: 'approved', label: 'Approved' },
  { value: 'paid', label: 'Paid' },
  { value: 'denied', label: 'Denied' },
] as const;

export type CommissionFilter = (typeof commissionFilters)[number]['value'];

export interface CommissionItem {
  id: number;
  partner: string;
  sale: string;
  amount: string;
  status: string;
  created: string;
}

export function CommissionsPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  filter: CommissionFilter;
  commissions: CommissionItem[];
  page: number;
  hasNext: boolean;
  done?: string | undefined;
  problem?: string | undefined;
}) {
  const { program } = props;
  const base = `${program.base}/commissions`;
  const writable = mayWrite(program.role);
  return (
    <ConsoleLayout
      title="Commissions"
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="commissions"
    >
      <div class="card">
        <h1>Commissions</h1>
        {props.done ? <Done>{props.done}</Done> : null}
        {props.problem ? <Notice>{props.problem}</Notice> : null}
        <FilterTabs label="Commission status" base={base} current={props.filter} tabs={commissionFilters} />
        {props.commissions.length === 0 ? (
          <p class="muted">No commissions here.</p>
        ) : (
          <form method="post" action={`${base}/review`}>
            <CsrfField token={props.csrf} />
            <div class="scroll">
              <table class="stack">
                <caption class="muted">{props.commissions.length} shown</caption>
                <thead>
                  <tr>
                    {writable ? (
                      <th scope="col">
                        <span class="hp">Select</span>
                      </th>
                    ) : null}
                    <th scope="col">Commission</th>
                    <th scope="col">Partner</th>
                    <th scope="col">Sale</th>
                    <th scope="col" class="num">
                      Amount
                    </th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {props.commissions.map((commission) => (
                    <tr key={commission.id}>
                      {writable ? (
                        <td>
                          <input
                            type="checkbox"
                            name="ids"
                            value={String(commission.id)}
                            aria-label={`Select commission ${commission.id}`}
                          />
                        </td>
                      ) : null}
                      <td data-label="Commission">#{commission.id}</td>
                      <td data-label="Partner">{commission.partner}</td>
                      <td data-label="Sale">{commission.sale}</td>
                      <td data-label="Amount" class="num">
                        {commission.amount}
                      </td>
                      <td data-label="Status">
                        <Badge kind={commission.status}>
                          {commission.status.charAt(0).toUpperCase()}
                          {commission.status.slice(1)}
                        </Badge>
                      </td>
                      <td data-label="Created">{commission.created}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {writable ? (
              <>
                <div class="field">
                  <label for="field-reason">Reason (optional, kept with the commissions)</label>
                  <input id="field-reason" name="reason" type="text" maxLength={1000} />
                </div>
                <p class="actions">
                  <button type="submit" name="action" value="approve">
                    Approve selected
                  </button>
                  <button type="submit" name="action" value="deny" class="secondary">
                    Deny selected
                  </button>
                </p>
              </>
            ) : null}
          </form>
        )}
        <Pager
          base={base}
          query={props.filter ? { status: props.filter } : {}}
          page={props.page}
          hasNext={props.hasNext}
        />
      </div>
    </ConsoleLayout>
  );
}
