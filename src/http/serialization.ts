import fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { customFormats } from './validation.ts';

export type Serializer = (payload: unknown) => string;

/**
 * A response schema's serializer (fast-json-stringify, as Fastify's own), built on its first call
 * like the validators (validation.ts, docs/adr/0139).
 */
export function serializerFor(schema: TSchema): Serializer {
  let compiled: Serializer | undefined;
  return (payload) => {
    // A TypeBox schema is a JSON Schema; the library's overloads want its own schema types.
    compiled ??= fastJsonStringify(schema as fastJsonStringify.AnySchema, {
      ajv: { formats: customFormats },
    });
    return compiled(payload);
  };
}

export const serializerCompiler: FastifySerializerCompiler<TSchema> = ({ schema }) => serializerFor(schema);
