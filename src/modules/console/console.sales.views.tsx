import type { ConsoleUser } from './console.accounts.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Badge, ListTable, numeric, Pager, SearchBox } from './console.lists.views.tsx';
import type { ConsoleProgram } from './console.programs.service.ts';
import type { customersPage, transactionsPage } from './console.sales.service.ts';

/** The customers and transactions lists, newest first, with their search. */

type ListProps<List> = {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  search: string;
  list: List;
  page: number;
};

export function CustomersPage(props: ListProps<Awaited<ReturnType<typeof customersPage>>>) {
  const { program, list } = props;
  const base = `${program.base}/customers`;
  const affiliate = program.type === 'affiliate';
  return (
    <ConsoleLayout
      title="Customers"
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="customers"
    >
      <div class="card">
        <h1>Customers</h1>
        <SearchBox base={base} label="Search by e-mail, key or id" value={props.search} />
        {list.items.length === 0 ? (
          <p class="muted">No customers here.</p>
        ) : (
          <div class="scroll">
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">Customer</th>
                  <th scope="col">Key</th>
                  {affiliate ? <th scope="col">Partner</th> : null}
                  <th scope="col">Since</th>
                </tr>
              </thead>
              <tbody>
                {list.items.map((customer) => (
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
                    <td data-label="Key">
                      <a href={`${program.base}/transactions?q=${encodeURIComponent(customer.key)}`}>
                        {customer.key}
                      </a>
                    </td>
                    {affiliate ? (
                      <td data-label="Partner">
                        {customer.partner ? (
                          <a href={`${program.base}/partners/${encodeURIComponent(customer.partner)}`}>
                            {customer.partner}
                          </a>
                        ) : (
                          '—'
                        )}
                      </td>
                    ) : null}
                    <td data-label="Since">{customer.created}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager
          base={base}
          query={props.search ? { q: props.search } : {}}
          page={props.page}
          hasNext={list.hasNext}
        />
      </div>
    </ConsoleLayout>
  );
}

export function TransactionsPage(props: ListProps<Awaited<ReturnType<typeof transactionsPage>>>) {
  const { program, list } = props;
  const base = `${program.base}/transactions`;
  return (
    <ConsoleLayout
      title="Transactions"
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="transactions"
    >
      <div class="card">
        <h1>Transactions</h1>
        <SearchBox base={base} label="Search by transaction key or customer key" value={props.search} />
        <ListTable
          empty="No transactions here."
          columns={['Transaction', 'Customer', numeric('Amount'), numeric('Refunded'), 'Date']}
          rows={list.items}
          row={(sale) => (
            <tr key={sale.key}>
              <td data-label="Transaction">
                <a href={`${base}/${encodeURIComponent(sale.key)}`}>{sale.key}</a>{' '}
                {sale.archived ? <Badge kind="archived">Archived</Badge> : null}
              </td>
              <td data-label="Customer">{sale.customer || '—'}</td>
              <td data-label="Amount" class="num">
                {sale.amount}
              </td>
              <td data-label="Refunded" class="num">
                {sale.refunded || '—'}
              </td>
              <td data-label="Date">{sale.created}</td>
            </tr>
          )}
        />
        <Pager
          base={base}
          query={props.search ? { q: props.search } : {}}
          page={props.page}
          hasNext={list.hasNext}
        />
      </div>
    </ConsoleLayout>
  );
}
