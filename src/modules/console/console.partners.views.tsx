import { CsrfField, Notice } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Badge, Done, FilterTabs, Pager } from './console.lists.views.tsx';
import type { ConsoleProgram } from './console.programs.service.ts';
import { mayWrite } from './console.programs.service.ts';

/** The partners of an affiliate program: filters, search, and approval one by one or for a selection. */

export const partnerFilters = [
  { value: '', label: 'All' },
  { value: 'pending', label: 'Pending' },
  { value: 'approved', label: 'Approved' },
  { value: 'rejected', label: 'Rejected' },
  { value: 'archived', label: 'Archived' },
] as const;

export type PartnerFilter = (typeof partnerFilters)[number]['value'];

export interface PartnerItem {
  id: string;
  name: string;
  email: string;
  approved: boolean;
  status: string;
  created: string;
}

/**
 * How the console names a partner's state: an applicant awaiting approval is unapproved and
 * `active`; rejecting one (or withdrawing an approval) turns it `pending` (docs/api-behaviour.md).
 */
export const stateOf = (partner: Pick<PartnerItem, 'approved' | 'status'>) =>
  partner.status === 'archived'
    ? ({ kind: 'archived', label: 'Archived' } as const)
    : partner.approved
      ? ({ kind: 'approved', label: 'Approved' } as const)
      : partner.status === 'pending'
        ? ({ kind: 'rejected', label: 'Rejected' } as const)
        : ({ kind: 'pending', label: 'Pending' } as const);

export function PartnersPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  filter: PartnerFilter;
  search: string;
  partners: PartnerItem[];
  page: number;
  hasNext: boolean;
  done?: string | undefined;
  problem?: string | undefined;
}) {
  const { program } = props;
  const base = `${program.base}/partners`;
  const writable = mayWrite(program.role);
  return (
    <ConsoleLayout title="Partners" user={props.user} csrf={props.csrf} program={program} section="partners">
      <div class="card">
        <h1>Partners</h1>
        {props.done ? <Done>{props.done}</Done> : null}
        {props.problem ? <Notice>{props.problem}</Notice> : null}
        <FilterTabs label="Partner status" base={base} current={props.filter} tabs={partnerFilters} />
        <form method="get" action={base} class="toolbar">
          {props.filter ? <input type="hidden" name="status" value={props.filter} /> : null}
          <div class="field">
            <label for="field-q">Search by e-mail, key or id</label>
            <input id="field-q" name="q" type="text" value={props.search} maxLength={255} />
          </div>
          <button type="submit" class="secondary">
            Search
          </button>
        </form>
        {props.partners.length === 0 ? (
          <p class="muted">No partners here.</p>
        ) : (
          <form method="post" action={`${base}/review`}>
            <CsrfField token={props.csrf} />
            <div class="scroll">
              <table class="stack">
                <caption class="muted">{props.partners.length} shown</caption>
                <thead>
                  <tr>
                    {writable ? (
                      <th scope="col">
                        <span class="hp">Select</span>
                      </th>
                    ) : null}
                    <th scope="col">Partner</th>
                    <th scope="col">Status</th>
                    <th scope="col">Joined</th>
                    {writable ? <th scope="col">Actions</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {props.partners.map((partner) => {
                    const state = stateOf(partner);
                    return (
                      <tr key={partner.id}>
                        {writable ? (
                          <td>
                            <input
                              type="checkbox"
                              name="ids"
                              value={partner.id}
                              id={`select-${partner.id}`}
                              aria-label={`Select ${partner.email}`}
                            />
                          </td>
                        ) : null}
                        <td data-label="Partner">
                          <strong>
                            <a href={`${base}/${encodeURIComponent(partner.id)}`}>{partner.name}</a>
                          </strong>
                          <br />
                          <span class="muted">{partner.email}</span>
                        </td>
                        <td data-label="Status">
                          <Badge kind={state.kind}>{state.label}</Badge>
                        </td>
                        <td data-label="Joined">{partner.created}</td>
                        {writable ? (
                          <td>
                            <span class="actions">
                              {state.kind === 'pending' || state.kind === 'rejected' ? (
                                <button
                                  type="submit"
                                  class="small"
                                  name="one"
                                  value={`approve:${partner.id}`}
                                  aria-label={`Approve ${partner.email}`}
                                >
                                  Approve
                                </button>
                              ) : null}
                              {state.kind === 'approved' || state.kind === 'pending' ? (
                                <button
                                  type="submit"
                                  class="small secondary"
                                  name="one"
                                  value={`reject:${partner.id}`}
                                  aria-label={`Reject ${partner.email}`}
                                >
                                  Reject
                                </button>
                              ) : null}
                            </span>
                          </td>
                        ) : null}
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            {writable ? (
              <p class="actions">
                <button type="submit" name="action" value="approve">
                  Approve selected
                </button>
                <button type="submit" name="action" value="reject" class="secondary">
                  Reject selected
                </button>
              </p>
            ) : null}
          </form>
        )}
        <Pager
          base={base}
          query={{
            ...(props.filter ? { status: props.filter } : {}),
            ...(props.search ? { q: props.search } : {}),
          }}
          page={props.page}
          hasNext={props.hasNext}
        />
      </div>
    </ConsoleLayout>
  );
}
