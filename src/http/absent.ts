/**
 * Contract §4.6: a JSON `null` or `""` on an optional field means "not given" (SDKs send
 * `"id": null`, an automation tool sends unset fields as `""`). They are removed before
 * validation, except where the field's schema accepts null: there null is a value ("clear it"),
 * and `""` becomes null too.
 */
type Schema = Record<string, unknown>;

function acceptsNull(schema: Schema | undefined): boolean {
  if (!schema) return false;
  if (schema.type === 'null') return true;
  if (Array.isArray(schema.type) && schema.type.includes('null')) return true;
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  return Array.isArray(branches) && branches.some(acceptsNull);
}

function propertySchema(schema: Schema | undefined, key: string): Schema | undefined {
  if (!schema) return undefined;
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (properties?.[key]) return properties[key];
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(branches)) {
    for (const branch of branches) {
      const found = propertySchema(branch, key);
      if (found) return found;
    }
  }
  const additional = schema.additionalProperties;
  return typeof additional === 'object' && additional !== null ? (additional as Schema) : undefined;
}

function itemSchema(schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined;
  if (typeof schema.items === 'object' && schema.items !== null) return schema.items as Schema;
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  return Array.isArray(branches) ? branches.map(itemSchema).find(Boolean) : undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stripAbsent(value: unknown, schema: Schema | undefined): unknown {
  if (Array.isArray(value)) {
    const items = itemSchema(schema);
    return value.map((item) => stripAbsent(item, items));
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const childSchema = propertySchema(schema, key);
    if (child === null || child === '') {
      if (acceptsNull(childSchema)) out[key] = null;
      continue;
    }
    out[key] = stripAbsent(child, childSchema);
  }
  return out;
}
