import type { ComponentChildren } from 'preact';
import { CsrfField } from '../../pages/forms.tsx';

/** Pieces the console's lists share: filter tabs, a notice after an action, the pager. */

export function FilterTabs(props: {
  label: string;
  base: string;
  current: string;
  tabs: readonly { value: string; label: string }[];
}) {
  return (
    <nav class="tabs" aria-label={props.label}>
      <ul>
        {props.tabs.map((tab) => (
          <li key={tab.value}>
            <a
              href={tab.value === '' ? props.base : `${props.base}?status=${tab.value}`}
              aria-current={tab.value === props.current ? 'page' : undefined}
            >
              {tab.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function Done(props: { children: ComponentChildren }) {
  return (
    <p class="success" role="status">
      {props.children}
    </p>
  );
}

/** Previous and next page links, keeping the list's filter. */
export function Pager(props: {
  base: string;
  query: Record<string, string>;
  page: number;
  hasNext: boolean;
}) {
  const href = (page: number) => {
    const params = new URLSearchParams({ ...props.query, ...(page > 1 ? { page: String(page) } : {}) });
    const text = params.toString();
    return text ? `${props.base}?${text}` : props.base;
  };
  if (props.page === 1 && !props.hasNext) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {props.page > 1 ? <a href={href(props.page - 1)}>Previous page</a> : null}
      <span class="muted">Page {props.page}</span>
      {props.hasNext ? <a href={href(props.page + 1)}>Next page</a> : null}
    </nav>
  );
}

export const Badge = (props: { kind: string; children: ComponentChildren }) => (
  <span class={`badge ${props.kind}`}>{props.children}</span>
);

/** The search of a list (a GET form: the address can be kept and shared). */
export function SearchBox(props: { base: string; label: string; value: string }) {
  return (
    <form method="get" action={props.base} class="toolbar">
      <div class="field">
        <label for="field-q">{props.label}</label>
        <input id="field-q" name="q" type="text" value={props.value} maxLength={255} />
      </div>
      <button type="submit" class="secondary">
        Search
      </button>
    </form>
  );
}

/** A column heading of a ListTable: a plain label, a right-aligned number column, or none (left out). */
export type Column = string | { label: string; num: true } | null;

export const numeric = (label: string): Column => ({ label, num: true });

/** A list's table (stacked into cards at phone width), or a muted line when it is empty. */
export function ListTable<T>(props: {
  empty: string;
  columns: readonly Column[];
  rows: readonly T[];
  row: (item: T) => ComponentChildren;
  /** Where the rows' buttons post (a form around the table, with its CSRF field). */
  form?: { action: string; csrf: string };
}) {
  if (props.rows.length === 0) return <p class="muted">{props.empty}</p>;
  const table = (
    <div class="scroll">
      <table class="stack">
        <thead>
          <tr>
            {props.columns.map((column) =>
              column === null ? null : typeof column === 'string' ? (
                <th key={column} scope="col">
                  {column}
                </th>
              ) : (
                <th key={column.label} scope="col" class="num">
                  {column.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{props.rows.map(props.row)}</tbody>
      </table>
    </div>
  );
  if (!props.form) return table;
  return (
    <form method="post" action={props.form.action}>
      <CsrfField token={props.form.csrf} />
      {table}
    </form>
  );
}

/** A row's own button in a table's form (`Delete`, `Remove`...), named for the row to screen readers. */
export function RowButton(props: {
  name: string;
  value: string | number;
  label: string;
  children: ComponentChildren;
}) {
  return (
    <td>
      <button
        type="submit"
        class="small secondary"
        name={props.name}
        value={props.value}
        aria-label={props.label}
      >
        {props.children}
      </button>
    </td>
  );
}
