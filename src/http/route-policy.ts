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

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The routes of one app. Each app builds its own (decorated as `app.routeTable`), so two apps in
 * one process, as the tests build them, never see each other's routes.
 */
export class RouteTable {
  readonly #router = FindMyWay();
  readonly #entries: RouteEntry[] = [];

  /** Every route, in registration order. */
  get entries(): readonly RouteEntry[] {
    return this.#entries;
  }

  /** The methods that do have a route at this URL (for 405 and its `Allow` header). */
  allowedMethods(url: string): string[] {
    const path = url.split('?')[0] ?? url;
    return METHODS.filter((method) => this.#router.find(method as never, path) !== null);
  }

  add(route: RouteOptions, auth: string, programTypes: readonly string[]): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      if (this.#router.find(method as never, route.url.replaceAll('::', ':')) === null) {
        this.#router.on(method as never, route.url, () => {});
      }
      if (this.#entries.some((r) => r.method === method && r.url === route.url)) continue;
      const success = (
        route.schema?.response as Record<string, { properties?: Record<string, unknown> }> | undefined
      )?.[200];
      this.#entries.push({
        method,
        url: route.url.replaceAll('::', ':'),
        auth,
        programTypes,
        hasParams: /\/:[a-z]/i.test(route.url),
        paginated: Boolean(success?.properties?.links && success.properties.meta),
      });
    }
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The routes this app serves (route-policy.ts). */
    routeTable: RouteTable;
  }
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
  const table = new RouteTable();
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    const config = (route.config ??= {});
    if (isDocsAsset(route.url)) config.auth ??= 'public';
    if (!config.auth) fail(route, 'declares no `config.auth`');
    if (config.auth === 'apiKey' && !config.programTypes?.length)
      fail(route, 'declares no `config.programTypes`');
    const isApi = route.url.startsWith('/v1') || route.url.startsWith('/admin/v1');
    if (isApi && (!route.schema?.operationId || !route.schema.summary))
      fail(route, 'has no operationId or summary');
    table.add(route, config.auth, config.programTypes ?? []);
  });
});
