// Second pass of `npm run lint`: modules depend on each other in one direction only.
//
// Counted over domain code: services, repositories and a module's internal files. Routes are
// the HTTP shell: a route under `/v1/customers/{id}/…` lives in the customers module (one home
// per URL prefix) yet may call the service of the module that owns the data, as the admin
// routes do. Schemas are pure shapes, and a cycle between any two files is caught by the first
// pass (.dependency-cruiser.cjs, no-file-cycles).
const base = require('./.dependency-cruiser.cjs');

const notDomain = [
  '\\.(routes|schemas)\\.ts$',
  '\\.(test|contract)\\.ts$',
  '\\.test-[^/]+\\.ts$',
  '^src/modules/index\\.ts$',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-module-cycles',
      comment: 'Modules depend on each other in one direction only (routes aside: they compose services).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/modules/[^/]+$' },
      to: { circular: true },
    },
  ],
  options: {
    ...base.options,
    exclude: { path: [...base.options.exclude.path, ...notDomain] },
  },
};
