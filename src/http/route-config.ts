import type { TSchema } from 'typebox';
import type { AuthenticatedProgram, Deps } from '../context.ts';
import type { ProgramType } from '../core/program-types.ts';

/** Who may call a route: an API key of a program, the operator's admin token, or anyone. */
export type RouteAuth = 'apiKey' | 'admin' | 'public';

export type ByProgramType<T> = Partial<Record<ProgramType, T>>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Required on every route: the app refuses to boot without it (route-policy.ts). */
    auth?: RouteAuth;
    /** Required with `auth: 'apiKey'`: the program types that have this endpoint (contract §3). */
    programTypes?: readonly ProgramType[];
    /** A GET that changes data (lead convert and reject, contract §4.10): read-only keys get 403. */
    writes?: boolean;
    /** Body and 200-response shapes that differ by program type (program-variants.ts). */
    variants?: { body?: ByProgramType<TSchema>; response?: ByProgramType<TSchema> };
  }
  interface FastifyRequest {
    /** Set by authentication on `apiKey` routes. */
    program: AuthenticatedProgram | null;
  }
  interface FastifyInstance {
    deps: Deps;
  }
}
