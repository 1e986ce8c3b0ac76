// The import rules of Vouch's architecture ("What may import what"), checked by `npm run lint`
// so a forbidden import fails CI instead of waiting for a reviewer.
//
// A module is a folder under src/modules/; its files are named by role:
// `<module>[.<part>].routes.ts`, `.schemas.ts`, `.service.ts`, `.repository.ts`. Other files in a
// module (`customers.referral.ts`, `partners.lookup.ts`, …) are its internals: only the module
// itself may import them, apart from the shared pure helpers listed in `sharedModuleFiles`.

// Module cycles are checked in a second pass, over domain code only: .dependency-cruiser.modules.cjs.

/** Tests and contract samples may reach anywhere to set up a case. */
const notTests = '\\.(test|contract)\\.ts$|\\.test-[^/]+\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'routes-no-data-access',
      comment:
        'A routes file speaks HTTP: it calls its service and never touches Kysely, db/ or a repository.',
      severity: 'error',
      from: { path: '\\.routes\\.ts$' },
      to: { path: ['\\.repository\\.ts$', '^src/db/', '(^|/)node_modules/kysely/'] },
    },
    {
      name: 'schemas-no-io',
      comment:
        'A schemas file describes shapes: it may import typebox, http/schemas.ts, core/ and other schemas, nothing with I/O.',
      severity: 'error',
      from: { path: '\\.schemas\\.ts$' },
      to: {
        // A type-only import vanishes at compile time, so it can carry no I/O.
        dependencyTypesNot: ['type-only'],
        pathNot: [
          '^src/http/schemas\\.ts$',
          '^src/http/list-query\\.ts$',
          '^src/core/',
          '\\.schemas\\.ts$',
          '(^|/)node_modules/typebox/',
        ],
      },
    },
    {
      name: 'service-no-http',
      comment:
        'A service holds the business rules and knows nothing of HTTP: no Fastify, nothing from http/. Pure helpers it needs live in core/.',
      severity: 'error',
      // Every module file but routes and schemas: internals such as customers.referral.ts are
      // service code too.
      from: {
        path: '^src/modules/[^/]+/',
        pathNot: ['\\.(routes|schemas)\\.ts$', '\\.(pages|views)\\.tsx$', notTests],
      },
      to: { path: ['^src/http/', '(^|/)node_modules/(fastify|@fastify/[^/]+)/'] },
    },
    {
      name: 'pages-render-their-service',
      comment:
        "A module's *.pages.tsx (and the *.views.tsx and *.pages.tsx it splits into) renders what its own service answers with the page layer (src/pages/): never Kysely, db/, a repository, http/ or another module.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/[^/]+\\.(pages|views)\\.tsx$' },
      to: {
        pathNot: [
          '^src/modules/$1/[^/]+\\.service\\.ts$',
          '^src/modules/$1/[^/]+\\.views\\.tsx$',
          // A module's pages may be split into several files (a route family each).
          '^src/modules/$1/[^/]+\\.pages\\.tsx$',
          '^src/pages/',
          '(^|/)node_modules/(preact|preact-render-to-string|fastify)/',
        ],
      },
    },
    {
      name: 'page-layer-is-general',
      comment: 'src/pages/ serves every module: it knows no module, no table and no query.',
      severity: 'error',
      from: { path: '^src/pages/' },
      to: { path: ['^src/modules/', '^src/db/', '(^|/)node_modules/kysely/'] },
    },
    {
      name: 'repository-no-business',
      comment:
        'A repository reads and writes rows; it returns undefined and lets the service decide. It never calls a service, routes or http/.',
      severity: 'error',
      from: { path: '\\.repository\\.ts$' },
      to: {
        path: ['\\.service\\.ts$', '\\.routes\\.ts$', '^src/http/', '(^|/)node_modules/fastify/'],
      },
    },
    {
      name: 'core-is-pure',
      comment:
        'core/ is pure logic: it imports core/ only (node:crypto for ids, the disposable e-mail domain list), no I/O, no Fastify, no Kysely.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: notTests },
      // disposable-email-domains-js is data (a list of domains) with a lookup: no I/O after load.
      to: {
        pathNot: [
          '^src/core/',
          '^crypto$',
          '^node:crypto$',
          '(^|/)node_modules/disposable-email-domains-js/',
        ],
      },
    },
    {
      name: 'no-other-modules-repository',
      comment: "A module reads another module's data through that module's service, never its repository.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/', pathNot: notTests },
      // counters/ is the one home for entity-counter upserts: rows-only helpers with no rules of
      // their own, composed inside the caller's write transaction (it belongs beside db/).
      to: {
        path: '^src/modules/[^/]+/[^/]+\\.repository\\.ts$',
        pathNot: ['^src/modules/$1/', '^src/modules/counters/'],
      },
    },
    {
      name: 'no-other-modules-internals',
      comment:
        "Across modules, only services and schemas are public (plus the shared pure helpers); a module's other files are its own.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/', pathNot: notTests },
      to: {
        path: '^src/modules/[^/]+/',
        pathNot: [
          '^src/modules/$1/',
          '\\.(service|schemas|repository)\\.ts$',
          '^src/modules/referral-links/referral-links\\.shared\\.ts$',
        ],
      },
    },
    {
      name: 'no-unresolvable',
      comment: 'An import the cruiser cannot resolve would escape every rule above.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-file-cycles',
      comment: 'A cycle between files makes the load order fragile.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    exclude: { path: ['\\.d\\.ts$'] },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
    },
  },
};
