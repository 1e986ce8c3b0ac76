import { OperationNodeTransformer, ValueNode } from 'kysely';
import { transformPlugin } from './transform-plugin.ts';

/**
 * SQLite, prepared queries only (db/prepared.ts): the text values the builder wrote itself
 * (`where('status', '=', 'pending')`) are written into the statement as literals instead of
 * parameters. They are the same on every call, so the statement text still is one per query.
 *
 * Why: when a table has a partial index whose condition names a column (`where status =
 * 'unattributed'`, `where status <> 'archived'`), SQLite plans a comparison of that column with
 * a parameter by the parameter's value, and so prepares the statement again every time a value
 * is bound to it, which better-sqlite3 does on every run. A literal is planned once: the waiting
 * refunds' look-up (`status = ?` on `billing_events`) took 14–21 µs a run bound and 6.5–10 µs
 * with the literal (ADR 0143). A value given per call (a named parameter) stays a parameter.
 */
class InlineConstantTexts extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    return typeof node.value === 'string' && !node.immediate ? ValueNode.createImmediate(node.value) : node;
  }
}

export const sqliteConstantTexts = () => transformPlugin(new InlineConstantTexts());
