import type { FastifyInstance } from 'fastify';
import { adminRoutes } from './admin/admin.routes.ts';
import { programRoutes } from './program/program.routes.ts';
import { systemRoutes } from './system/system.routes.ts';

/** Every route plugin, in URL order. */
export const routePlugins: ((app: FastifyInstance) => Promise<void>)[] = [
  systemRoutes,
  adminRoutes,
  programRoutes,
];
