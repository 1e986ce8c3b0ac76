import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';

/**
 * The import rules `npm run lint` checks (.dependency-cruiser.cjs) are only worth something if
 * each one fires: this cruises a small tree with one forbidden import per rule and expects
 * exactly those violations, and none from the allowed imports beside them.
 */

const root = join(import.meta.dirname, '..');
const run = promisify(execFile);

/** path → the imports it makes. Each forbidden one is listed in `expected` below. */
const tree: Record<string, string[]> = {
  'src/core/money.ts': ["import { randomUUID } from 'node:crypto';", "import { later } from './time.ts';"],
  'src/core/time.ts': [],
  'src/core/impure.ts': ["import type { DB } from '../db/tables.ts';"],
  'src/core/loop-a.ts': ["import './loop-b.ts';"],
  'src/core/loop-b.ts': ["import './loop-a.ts';"],
  'src/db/tables.ts': [],
  'src/http/schemas.ts': [],
  'src/http/context.ts': ["import type { FastifyRequest } from 'fastify';"],
  'src/modules/shop/shop.routes.ts': [
    "import { context } from '../../http/context.ts';",
    "import { Shop } from './shop.schemas.ts';",
    "import { listShops } from './shop.service.ts';",
    "import { findShop } from './shop.repository.ts';",
    "import type { Kysely } from 'kysely';",
  ],
  'src/modules/shop/shop.schemas.ts': [
    "import { Type } from 'typebox';",
    "import { Envelope } from '../../http/schemas.ts';",
    "import { tables } from '../../db/tables.ts';",
  ],
  'src/modules/shop/shop.service.ts': [
    "import { findShop } from './shop.repository.ts';",
    "import { money } from '../../core/money.ts';",
    "import { context } from '../../http/context.ts';",
    "import type { FastifyInstance } from 'fastify';",
  ],
  'src/modules/shop/shop.repository.ts': [
    "import type { Kysely } from 'kysely';",
    "import { listShops } from './shop.service.ts';",
  ],
  'src/modules/shop/shop.internal.ts': ["import { listOrders } from '../orders/orders.service.ts';"],
  'src/modules/orders/orders.service.ts': [
    "import { listShops } from '../shop/shop.service.ts';",
    "import { findShop } from '../shop/shop.repository.ts';",
    "import { helper } from '../shop/shop.internal.ts';",
    "import { nothing } from './orders.missing.ts';",
    "import { listProducts } from '../catalog/catalog.service.ts';",
  ],
  // A route may call the service of the module that owns the data: no module cycle.
  'src/modules/catalog/catalog.routes.ts': ["import { listOrders } from '../orders/orders.service.ts';"],
  'src/modules/catalog/catalog.service.ts': [],
  // Pages render their own service's answers with the page layer, nothing else.
  'src/modules/shop/shop.pages.tsx': [
    "import { listShops } from './shop.service.ts';",
    "import { Layout } from '../../pages/layout.tsx';",
    "import { findShop } from './shop.repository.ts';",
    "import type { Kysely } from 'kysely';",
    "import { listOrders } from '../orders/orders.service.ts';",
  ],
  'src/pages/layout.tsx': ["import { findShop } from '../modules/shop/shop.repository.ts';"],
};

// A cycle is reported once, at the edge where the cruiser first meets it.
const expected = [
  'core-is-pure src/core/impure.ts → src/db/tables.ts',
  'no-file-cycles src/core/loop-a.ts → src/core/loop-b.ts',
  'no-file-cycles src/modules/orders/orders.service.ts → src/modules/shop/shop.internal.ts',
  'no-file-cycles src/modules/shop/shop.repository.ts → src/modules/shop/shop.service.ts',
  'no-module-cycles src/modules/orders → src/modules/shop',
  'no-module-cycles src/modules/shop → src/modules/orders',
  // The page layer importing a module closes a loop with the module's pages.
  'no-module-cycles src/modules/shop → src/pages',
  'no-other-modules-internals src/modules/orders/orders.service.ts → src/modules/shop/shop.internal.ts',
  'no-other-modules-repository src/modules/orders/orders.service.ts → src/modules/shop/shop.repository.ts',
  'no-unresolvable src/modules/orders/orders.service.ts → ./orders.missing.ts',
  'page-layer-is-general src/pages/layout.tsx → src/modules/shop/shop.repository.ts',
  'pages-render-their-service src/modules/shop/shop.pages.tsx → node_modules/kysely/dist/esm/index.js',
  'pages-render-their-service src/modules/shop/shop.pages.tsx → src/modules/orders/orders.service.ts',
  'pages-render-their-service src/modules/shop/shop.pages.tsx → src/modules/shop/shop.repository.ts',
  'repository-no-business src/modules/shop/shop.repository.ts → src/modules/shop/shop.service.ts',
  'routes-no-data-access src/modules/shop/shop.routes.ts → node_modules/kysely/dist/esm/index.js',
  'routes-no-data-access src/modules/shop/shop.routes.ts → src/modules/shop/shop.repository.ts',
  'schemas-no-io src/modules/shop/shop.schemas.ts → src/db/tables.ts',
  'service-no-http src/modules/shop/shop.service.ts → node_modules/fastify/fastify.js',
  'service-no-http src/modules/shop/shop.service.ts → src/http/context.ts',
];

let workspace: string;

before(() => {
  workspace = mkdtempSync(join(tmpdir(), 'vouch-import-rules-'));
  for (const [path, imports] of Object.entries(tree)) {
    mkdirSync(join(workspace, dirname(path)), { recursive: true });
    writeFileSync(join(workspace, path), `${imports.join('\n')}\nexport {};\n`);
  }
  writeFileSync(
    join(workspace, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowImportingTsExtensions: true },
    }),
  );
  // The real packages, so imports of kysely and fastify resolve as they do in Vouch.
  symlinkSync(join(root, 'node_modules'), join(workspace, 'node_modules'), 'dir');
});

after(() => rmSync(workspace, { recursive: true, force: true }));

/** The violations one `npm run lint` pass finds in the tree, as `rule from → to`. */
async function violations(configFile: string): Promise<string[]> {
  const cruiser = join(root, 'node_modules/.bin/depcruise');
  const config = join(root, configFile);
  const output = await run(cruiser, ['src', '--config', config, '--output-type', 'json'], {
    cwd: workspace,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const result = JSON.parse(output.stdout) as {
    summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  };
  // Packages resolve through the symlink to Vouch's own node_modules, wherever it is.
  const shown = (path: string) => path.replace(/^.*?(node_modules\/)/, '$1');
  return result.summary.violations.map((v) => `${v.rule.name} ${v.from} → ${shown(v.to)}`);
}

test('every import rule fires on its forbidden import, and only there', async () => {
  const found = [
    ...(await violations('.dependency-cruiser.cjs')),
    ...(await violations('.dependency-cruiser.modules.cjs')),
  ];
  assert.deepEqual([...new Set(found)].sort(), expected);
});
