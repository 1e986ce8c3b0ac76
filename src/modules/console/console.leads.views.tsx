import { CsrfField, Field, Notice } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import type { LeadDetail, leadsPage } from './console.leads.service.ts';
import { Badge, Done, FilterTabs, ListTable, Pager } from './console.lists.views.tsx';
import { type ConsoleProgram, mayWrite } from './console.programs.service.ts';

/** Leads: the list by status, and one lead with its answers, `Convert` (with a sale's amount) and `Reject`. */

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

export const leadFilters = [
  { value: '', label: 'All' },
  { value: 'submitted', label: 'Submitted' },
  { value: 'converted', label: 'Converted' },
  { value: 'rejected', label: 'Rejected' },
] as const;

export function LeadsPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  filter: string;
  list: Awaited<ReturnType<typeof leadsPage>>;
  page: number;
}) {
  const { program, list } = props;
  const base = `${program.base}/leads`;
  return (
    <ConsoleLayout title="Leads" user={props.user} csrf={props.csrf} program={program} section="leads">
      <div class="card">
        <h1>Leads</h1>
        <p class="muted">Leads are the prospects partners submit in the partner portal.</p>
        <FilterTabs label="Lead status" base={base} current={props.filter} tabs={leadFilters} />
        <ListTable
          empty="No leads here."
          columns={['Lead', 'Submitted by', 'Status', 'Date']}
          rows={list.items}
          row={(lead) => (
            <tr key={lead.id}>
              <td data-label="Lead">
                <a href={`${base}/${lead.id}`}>{lead.name}</a>
                <br />
                <span class="muted">{lead.email}</span>
              </td>
              <td data-label="Submitted by">{lead.submitter}</td>
              <td data-label="Status">
                <Badge kind={lead.status}>{capitalized(lead.status)}</Badge>
              </td>
              <td data-label="Date">{lead.created}</td>
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

export function LeadPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  lead: LeadDetail;
  amount?: string;
  errors?: Record<string, string>;
  done?: string | undefined;
}) {
  const { program, lead } = props;
  const errors = props.errors ?? {};
  const base = `${program.base}/leads/${lead.id}`;
  const writable = mayWrite(program.role);
  return (
    <ConsoleLayout
      title={`Lead ${lead.name}`}
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="leads"
    >
      <div class="card">
        <p>
          <a href={`${program.base}/leads`}>All leads</a>
        </p>
        <h1>Lead {lead.name}</h1>
        {props.done ? <Done>{props.done}</Done> : null}
        {errors.id ? <Notice>{errors.id}</Notice> : null}
        <p>
          <Badge kind={lead.status}>{capitalized(lead.status)}</Badge>{' '}
          <span class="muted">
            {lead.email} · submitted {lead.created} by{' '}
            {lead.submitterId ? (
              <a href={`${program.base}/partners/${encodeURIComponent(lead.submitterId)}`}>
                {lead.submitter}
              </a>
            ) : (
              lead.submitter
            )}
          </span>
        </p>
        {lead.convertedTo ? (
          <p>
            Converted to the customer{' '}
            <a href={`${program.base}/customers?q=${encodeURIComponent(lead.convertedTo)}`}>
              {lead.convertedTo}
            </a>
            .
          </p>
        ) : null}
        {writable && lead.canConvert ? (
          <form method="post" action={`${base}/convert`} class="toolbar" novalidate>
            <CsrfField token={props.csrf} />
            <Field
              name="commission_transaction_amount"
              label="Amount of the sale"
              value={props.amount ?? ''}
              error={errors.commission_transaction_amount}
              maxLength={32}
              hint="The sale the conversion records; the partner earns its commission on it."
            />
            <button type="submit">Convert</button>
          </form>
        ) : null}
        {writable && lead.canReject ? (
          <form method="post" action={`${base}/reject`} class="actions">
            <CsrfField token={props.csrf} />
            <button type="submit" class="secondary">
              Reject
            </button>
          </form>
        ) : null}
      </div>
      <div class="card">
        <h2>Answers</h2>
        {lead.answers.length === 0 ? (
          <p class="muted">The form had no further questions.</p>
        ) : (
          <dl>
            {lead.answers.map((entry) => (
              <div key={entry.id}>
                <dt>{entry.question}</dt>
                <dd>{entry.answer}</dd>
              </div>
            ))}
          </dl>
        )}
      </div>
    </ConsoleLayout>
  );
}
