/**
 * How an update body names its record when the path does not (contract: `PUT /v1/<resources>`).
 * The body is flat (identifier and changes side by side) or wraps the changes in `update`. The
 * first identity field given names the record; the lookups take the same order, first wins.
 */

type Body = Record<string, unknown>;

export function splitUpdateBody<Field extends string>(
  segment: string | undefined,
  body: Body,
  identity: readonly Field[],
): { ref: Partial<Record<Field, string>>; changes: Body } {
  const wrapped = body.update as Body | undefined;
  const { update: _update, ...flat } = body;
  const changes = wrapped ?? flat;
  if (segment !== undefined) return { ref: {}, changes };
  for (const field of identity) {
    const value = body[field];
    if (typeof value !== 'string') continue;
    const ref = { [field]: value } as Partial<Record<Field, string>>;
    if (wrapped !== undefined) return { ref, changes: wrapped };
    // In the flat form the identifier is not a change.
    const { [field]: _identifier, ...rest } = flat;
    return { ref, changes: rest };
  }
  return { ref: {}, changes };
}
