import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { docsPage } from './docs-page.ts';
import { hoistComponents } from './openapi-components.ts';

const security = {
  apiKey: [{ apiKey: [] }],
  admin: [{ adminToken: [] }],
  public: [],
} as const;

/** The OpenAPI 3.1 document, generated from the route schemas, and its rendered reference. */
export const openApi = fp(async (app: FastifyInstance) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Vouch API',
        version: '1.0.0',
        description:
          'Affiliate, refer-a-friend and newsletter referral programs. `/v1` takes an API key of a program; `/admin/v1` takes the operator token (ADMIN_TOKEN). Every path answers a URL that does not decode (`%ZZ`) with 400, and a method it does not list with 405 and an `Allow` header, both with the JSON error body `{message, errors, status: 0}`.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'A program API key, `vk_…`' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The ADMIN_TOKEN of the server' },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const auth = (route.config as { auth?: keyof typeof security } | undefined)?.auth ?? 'public';
      const hidden = url === '/docs' || url.startsWith('/docs/');
      return {
        schema: {
          ...schema,
          security: [...security[auth]],
          hide: hidden || (schema as { hide?: boolean })?.hide,
        },
        // Colon paths (`/v1/partners::search` for the router) come out as `/v1/partners:search`.
        url,
      } as never;
    },
    // Each named wire shape once under `components`, referenced from the routes.
    transformObject: (document) =>
      'openapiObject' in document ? hoistComponents(document.openapiObject) : {},
  });
  await app.register(swaggerUi, docsPage);
});
