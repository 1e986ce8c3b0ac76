import type { FastifyInstance } from 'fastify';
import { definePages } from '../../pages/plugin.tsx';
import { accountRoutes } from './portal.account.pages.tsx';
import { partnerRoutes } from './portal.partner.pages.tsx';
import { byHost, byPath, type Mount } from './portal.requests.pages.tsx';

/**
 * The partner portal's pages, `/p/{program public id}/…`: program page, sign-up, sign-in (password
 * or one-time link), password reset, dashboard and settings. Every form carries a CSRF token;
 * handlers read the form, call one service function and render.
 */

async function portalRoutes(app: FastifyInstance, mount: Mount) {
  await accountRoutes(app, mount);
  await partnerRoutes(app, mount);
}

/** `/p/{program public id}/…`: the partner portal. */
export const partnerPortalPages = definePages('/p', (app) => portalRoutes(app, byPath));

/** `/…` on a program's own `portal_host`: the same portal (any other host: nothing here). */
export const hostPortalPages = definePages('', (app) => portalRoutes(app, byHost), {
  servedOn: async (request) => (await byHost.find(request)) !== undefined,
});
