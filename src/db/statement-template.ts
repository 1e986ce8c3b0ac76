/**
 * A compiled statement as plain data: its SQL, and per placeholder either a value it keeps or the
 * name of the value each run fills in. What `compileNamed` (db/prepared.ts) makes, and what a
 * thread without Kysely (an export's page reader, db/export-threads.ts) can bind and run.
 */
export interface StatementTemplate {
  sql: string;
  /** Per placeholder: the name of the value that fills it, or null for the kept value. */
  names: readonly (string | null)[];
  values: readonly unknown[];
}

/** The placeholders' values for one run. */
export function bindTemplate(template: StatementTemplate, params: Readonly<Record<string, unknown>>) {
  return template.names.map((name, i) => (name === null ? template.values[i] : params[name]));
}
