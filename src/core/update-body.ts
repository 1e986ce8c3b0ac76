/**
 * How an update body names its record when the path does not (contract: `PUT /v1/<resources>`).
 * The body is flat (identifier and changes side by side) or wraps the changes in `update`. The
 * first identity field given names the record; the lookups take the same order, first wins.
 */

/** An update schema's body: its changes spread at the top (flat form) beside `update` (wrapped). */
type UpdateBody = { update?: object | undefined };

/** The changes an update body carries, in either form: the shape of its `update`. */
export type UpdateChanges<Body extends UpdateBody> = NonNullable<Body['update']>;

export function splitUpdateBody<Body extends UpdateBody, Field extends string & keyof Body>(
  segment: string | undefined,
  body: Body & UpdateChanges<Body>,
  identity: readonly Field[],
): { ref: Partial<Record<Field, string>>; changes: UpdateChanges<Body> } {
  const { update: wrapped, ...flat } = body;
  // The signature holds the flat form to the same changes as the wrapped one.
  const changes = (wrapped ?? flat) as UpdateChanges<Body>;
  if (segment !== undefined) return { ref: {}, changes };
  for (const field of identity) {
    const value = body[field];
    if (typeof value !== 'string') continue;
    const ref: Partial<Record<Field, string>> = {};
    ref[field] = value;
    if (wrapped !== undefined) return { ref, changes };
    // In the flat form the identifier is not a change.
    const { [field]: _identifier, ...rest } = flat as Record<string, unknown>;
    return { ref, changes: rest as UpdateChanges<Body> };
  }
  return { ref: {}, changes };
}
