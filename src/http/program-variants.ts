import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type TSchema, type TUnion, Type } from 'typebox';
import { type ProgramType, programTypes } from '../core/program-types.ts';
import { stripAbsent } from './absent.ts';
import { type Serializer, serializerFor } from './serialization.ts';
import { compileBodyValidator, VARIANTS_MARKER, validationErrorFromAjv } from './validation.ts';

/** The schemas a record of variants holds, as a tuple in the order of `programTypes`. */
type Branches<V, Types extends readonly ProgramType[] = typeof programTypes> = Types extends readonly [
  infer Type extends ProgramType,
  ...infer Rest extends ProgramType[],
]
  ? Type extends keyof V
    ? V[Type] extends TSchema
      ? [V[Type], ...Branches<V, Rest>]
      : Branches<V, Rest>
    : Branches<V, Rest>
  : [];

/**
 * The union a variant route declares as its 200, marked with the program type of each branch:
 * the type provider types the handler's answer by it (one of the variants), the document shows
 * it, and the hook below serializes each answer with its own program type's branch. A route that
 * serves some program types only names theirs.
 */
export function unionOfVariants<V extends Partial<Record<ProgramType, TSchema>>>(
  variants: V,
): TUnion<Branches<V>> {
  const types = programTypes.filter((type) => variants[type] !== undefined);
  const branches = types.flatMap((type) => variants[type] ?? []);
  const union: TUnion<TSchema[]> = Type.Union(branches, { [VARIANTS_MARKER]: types });
  // The branches are in the order of programTypes, as the tuple type says.
  return union as TUnion<Branches<V>>;
}

/**
 * Bodies and responses whose shape depends on the caller's program type. The OpenAPI document
 * shows the union of the variants, marked with their program types in order; each request is
 * validated and serialized with exactly the variant of its program (a union would validate loosely
 * and serialize with its first fitting branch).
 */
export const programVariants = fp(async (app: FastifyInstance) => {
  app.addHook('onRoute', (route) => {
    const variants = route.config?.variants;
    if (!variants) return;
    const schema = (route.schema ??= {});

    if (variants.body) {
      const entries = Object.entries(variants.body) as [ProgramType, TSchema & { examples?: unknown[] }][];
      // The variants' examples become the body's (the document shows them beside the union).
      const examples = entries.flatMap(([, s]) => s.examples ?? []);
      schema.body = Type.Union(
        entries.map(([, { examples: _, ...bare }]) => bare),
        { [VARIANTS_MARKER]: entries.map(([type]) => type), ...(examples.length ? { examples } : {}) },
      );
      const validators = new Map(
        entries.map(([type, s]) => [type, { schema: s, validate: compileBodyValidator(s) }]),
      );
      const validateVariant = async (request: FastifyRequest) => {
        const variant = request.program ? validators.get(request.program.type) : undefined;
        if (!variant) return;
        const body = stripAbsent(request.body ?? {}, variant.schema as Record<string, unknown>);
        if (!variant.validate(body)) throw validationErrorFromAjv(variant.validate.errors ?? []);
        request.body = body;
      };
      route.preValidation = [...toArray(route.preValidation), validateVariant];
    }

    if (variants.response) {
      const entries = Object.entries(variants.response) as [ProgramType, TSchema][];
      const responses = (schema.response ??= {}) as Record<string, unknown>;
      // The success status the route declares: 201 for a create, else 200.
      responses[responses[201] === undefined ? 200 : 201] = Type.Union(
        entries.map(([, s]) => s),
        { [VARIANTS_MARKER]: entries.map(([type]) => type) },
      );
      const serializers = new Map<ProgramType, Serializer>(
        entries.map(([type, s]) => [type, serializerFor(s)]),
      );
      const chooseSerializer = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        const serializer = request.program ? serializers.get(request.program.type) : undefined;
        if (serializer && reply.statusCode < 300) reply.serializer(serializer);
        return payload;
      };
      route.preSerialization = [...toArray(route.preSerialization), chooseSerializer] as never;
    }
  });
});

function toArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
