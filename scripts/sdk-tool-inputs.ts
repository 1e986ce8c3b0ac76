// Each MCP tool's input schema, from the operation's parameters and request body in the OpenAPI
// document: one flat object, the shape a model fills in best. References are written out (a tool
// schema stands alone), and Vouch's own `x-` annotations and formats JSON Schema does not define
// are left out, so that any MCP client's validator accepts the schema.
import type { OpenAPI3 } from 'openapi-typescript';
import type {
  ProgramTypeName,
  ToolInput,
  ToolInputSchema,
  ToolName,
  ToolOperation,
} from '../packages/mcp/src/tool-operations.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Keywords of OpenAPI's schema dialect that JSON Schema does not have, and the display-only title. */
const openApiOnly = new Set(['title', 'example', 'discriminator', 'xml', 'externalDocs', 'nullable']);

const standardFormats = new Set(['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'hostname', 'ipv4']);

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function resolve(document: JsonObject, ref: string): Json {
  let node: Json = document;
  for (const part of ref.replace(/^#\//, '').split('/')) {
    if (!isObject(node)) throw new Error(`${ref} does not resolve`);
    node = node[part.replaceAll('~1', '/').replaceAll('~0', '~')] ?? null;
  }
  if (node === null) throw new Error(`${ref} does not resolve`);
  return node;
}

/** A schema with every reference written out and only standard keywords left. */
function standalone(document: JsonObject, schema: Json, depth = 0): Json {
  if (depth > 40) throw new Error('a schema nests too deep (a reference cycle?)');
  if (Array.isArray(schema)) return schema.map((item) => standalone(document, item, depth + 1));
  if (!isObject(schema)) return schema;
  if (typeof schema.$ref === 'string') return standalone(document, resolve(document, schema.$ref), depth + 1);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-') || openApiOnly.has(key)) continue;
    if (key === 'format' && typeof value === 'string' && !standardFormats.has(value)) continue;
    // `properties` maps names to schemas: its keys are field names, never keywords.
    out[key] =
      key === 'properties' && isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([n, s]) => [n, standalone(document, s, depth + 1)]))
        : standalone(document, value, depth + 1);
  }
  return out;
}

function addField(target: ToolInputSchema, name: string, schema: Json, required: boolean, where: string) {
  if (name in target.properties)
    throw new Error(`${where}: the field ${name} is both a parameter and a body field`);
  target.properties[name] = schema as object;
  if (required) target.required = [...(target.required ?? []), name];
}

function inputFor(document: JsonObject, operation: JsonObject, body: Json | undefined, where: string) {
  const input: ToolInputSchema = { type: 'object', properties: {} };
  const parameters = Array.isArray(operation.parameters) ? operation.parameters : [];
  for (const raw of parameters) {
    const parameter = standalone(document, raw);
    if (!isObject(parameter) || typeof parameter.name !== 'string') continue;
    const schema = isObject(parameter.schema) ? { ...parameter.schema } : {};
    if (typeof parameter.description === 'string') schema.description ??= parameter.description;
    addField(input, parameter.name, schema, parameter.required === true, where);
  }
  if (body !== undefined) {
    const schema = standalone(document, body);
    if (!isObject(schema)) throw new Error(`${where}: the body is not a schema`);
    if (!isObject(schema.properties)) {
      // A body of alternatives (`anyOf` of object shapes) stays as it is, beside the parameters.
      if (!Array.isArray(schema.anyOf) && !Array.isArray(schema.oneOf))
        throw new Error(`${where}: the body is neither an object nor alternatives`);
      const { type: _object, ...alternatives } = schema;
      return Object.assign(input, alternatives);
    }
    const { type: _object, properties, required, ...conditions } = schema;
    const requiredFields = Array.isArray(required) ? required : [];
    for (const [name, field] of Object.entries(properties))
      addField(input, name, field, requiredFields.includes(name), where);
    // Rules across fields (`if`/`then`: a single sale needs `amount` and `action`) stay as they are.
    Object.assign(input, conditions);
  }
  return input;
}

function toolInput(document: JsonObject, tool: string, spec: ToolOperation): ToolInput {
  const where = `${tool} (${spec.method.toUpperCase()} ${spec.path})`;
  const pathItem = resolve(document, `#/paths/${spec.path.replaceAll('~', '~0').replaceAll('/', '~1')}`);
  const operation = isObject(pathItem) ? pathItem[spec.method] : undefined;
  if (!isObject(operation)) throw new Error(`${where} is not in the document`);
  const requestBody = isObject(operation.requestBody) ? operation.requestBody : undefined;
  const content = isObject(requestBody) && isObject(requestBody.content) ? requestBody.content : undefined;
  const json = content?.['application/json'];
  const bodySchema = isObject(json) ? json.schema : undefined;
  // A body that differs by program type names each type's schema; the tool offers the key's one.
  const byType = isObject(bodySchema) ? bodySchema['x-vouch-by-program-type'] : undefined;
  if (isObject(byType)) {
    const byProgramType: Partial<Record<ProgramTypeName, ToolInputSchema>> = {};
    for (const [type, ref] of Object.entries(byType)) {
      byProgramType[type as ProgramTypeName] = inputFor(document, operation, { $ref: ref }, where);
    }
    return { byProgramType };
  }
  return { all: inputFor(document, operation, bodySchema, where) };
}

export function toolInputSchemas(
  document: OpenAPI3,
  operations: Record<ToolName, ToolOperation>,
): Record<ToolName, ToolInput> {
  const json = document as unknown as JsonObject;
  const entries = Object.entries(operations).map(([tool, spec]) => [tool, toolInput(json, tool, spec)]);
  return Object.fromEntries(entries) as Record<ToolName, ToolInput>;
}
