import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import FindMyWay from 'find-my-way';

/** What the app knows of every route it serves: used for 405 answers and by the contract tests. */
export interface RouteEntry {
  method: string;
  url: string;
  auth: string;
  programTypes: readonly string[];
  hasParams: boolean;
  paginated: boolean;
}

const router = FindMyWay();
const routes: RouteEntry[] = [];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The methods that do have a route at this URL (for 405 and its `Allow` header). */
export function allowedMethods(url: string): string[] {
  const path = url.split('?')[0] ?? url;
  return METHODS.filter((method) => router.find(method as never, path) !== null);
}

export function routeTable(): readonly RouteEntry[] {
  return routes;
}

// swagger-ui serves its own assets under /docs; they are public by nature.
const isDocsAsset = (url: string) => url === '/docs' || url.startsWith('/docs/');

function fail(route: RouteOptions, problem: string): never {
  throw new Error(`Route ${String(route.method)} ${route.url} ${problem}`);
}

/**
 * Every route states who may call it and, for API-key routes, which program types have it; an
 * API route also names its operation. The app refuses to boot otherwise.
 */
export const routePolicy = fp(async (app: FastifyInstance) => {
  app.addHook('onRoute', (route) => {
    const config = (route.config ??= {});
    if (isDocsAsset(route.url)) config.auth ??= 'public';
    if (!config.auth) fail(route, 'declares no `config.auth`');
    if (config.auth === 'apiKey' && !config.programTypes?.length)
      fail(route, 'declares no `config.programTypes`');
    const isApi = route.url.startsWith('/v1') || route.url.startsWith('/admin/');
    if (isApi && (!route.schema?.operationId || !route.schema.summary))
      fail(route, 'has no operationId or summary');
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      if (router.find(method as never, route.url.replaceAll('::', ':')) === null) {
        router.on(method as never, route.url, () => {});
      }
      if (!routes.some((r) => r.method === method && r.url === route.url)) {
        const success = (
          route.schema?.response as Record<string, { properties?: Record<string, unknown> }> | undefined
        )?.[200];
        routes.push({
          method,
          url: route.url.replaceAll('::', ':'),
          auth: config.auth!,
          programTypes: config.programTypes ?? [],
          hasParams: /\/:[a-z]/i.test(route.url),
          paginated: Boolean(success?.properties?.links && success.properties.meta),
        });
      }
    }
  });
});
