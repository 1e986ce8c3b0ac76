import { CsrfField } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Badge, Done, ListTable, numeric } from './console.lists.views.tsx';
import type { PartnerDetail } from './console.partner.service.ts';
import { stateOf } from './console.partners.views.tsx';
import { type ConsoleProgram, mayWrite } from './console.programs.service.ts';

/** One partner: who, its figures, links, newest customers and commissions, payout method, archive. */

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

export function PartnerPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  partner: PartnerDetail;
  done?: string | undefined;
}) {
  const { program, partner } = props;
  const base = `${program.base}/partners/${encodeURIComponent(partner.id)}`;
  const state = stateOf(partner);
  return (
    <ConsoleLayout
      title={partner.name}
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="partners"
    >
      <div class="card">
        <p>
          <a href={`${program.base}/partners`}>All partners</a>
        </p>
        <h1>{partner.name}</h1>
        {props.done ? <Done>{props.done}</Done> : null}
        <p>
          <Badge kind={state.kind}>{state.label}</Badge>{' '}
          <span class="muted">
            {partner.email} · id {partner.id} · joined {partner.joined}
          </span>
        </p>
        <dl class="figures">
          {partner.figures.map((figure) => (
            <div key={figure.label}>
              <dt>{figure.label}</dt>
              <dd>{figure.value}</dd>
            </div>
          ))}
        </dl>
        <h2>Payout method</h2>
        <p>
          {partner.payout.method}
          {partner.payout.details.length > 0 ? (
            <span class="muted"> ({partner.payout.details.join(', ')})</span>
          ) : null}
        </p>
        {mayWrite(program.role) ? (
          <form method="post" action={`${base}/archive`} class="actions">
            <CsrfField token={props.csrf} />
            {partner.status === 'archived' ? (
              <button type="submit" name="action" value="unarchive">
                Unarchive
              </button>
            ) : (
              <button type="submit" name="action" value="archive" class="secondary">
                Archive
              </button>
            )}
          </form>
        ) : null}
      </div>
      <div class="card">
        <h2>Links</h2>
        {partner.links.length === 0 ? (
          <p class="muted">No links.</p>
        ) : (
          <ul>
            {partner.links.map((link) => (
              <li key={link.key}>
                <code>{link.url}</code>
                {link.isDefault ? <span class="muted"> (default)</span> : null}
              </li>
            ))}
          </ul>
        )}
      </div>
      <div class="card">
        <h2>Newest customers</h2>
        <ListTable
          empty="No customers yet."
          columns={['Customer', 'Key', 'Since']}
          rows={partner.customers}
          row={(customer) => (
            <tr key={customer.key}>
              <td data-label="Customer">
                {customer.name}
                {customer.email && customer.email !== customer.name ? (
                  <>
                    <br />
                    <span class="muted">{customer.email}</span>
                  </>
                ) : null}
              </td>
              <td data-label="Key">{customer.key}</td>
              <td data-label="Since">{customer.created}</td>
            </tr>
          )}
        />
      </div>
      <div class="card">
        <h2>Newest commissions</h2>
        <ListTable
          empty="No commissions yet."
          columns={['Commission', 'Sale', numeric('Amount'), 'Status', 'Created']}
          rows={partner.commissions}
          row={(commission) => (
            <tr key={commission.id}>
              <td data-label="Commission">#{commission.id}</td>
              <td data-label="Sale">{commission.sale}</td>
              <td data-label="Amount" class="num">
                {commission.amount}
              </td>
              <td data-label="Status">
                <Badge kind={commission.status}>{capitalized(commission.status)}</Badge>
              </td>
              <td data-label="Created">{commission.created}</td>
            </tr>
          )}
        />
      </div>
    </ConsoleLayout>
  );
}
