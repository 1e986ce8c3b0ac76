// `npm run openapi`: writes openapi.json from the route schemas (test/openapi.test.ts fails when
// the committed file is stale). Never edit openapi.json by hand.
import { writeFileSync } from 'node:fs';
import { generateOpenApiDocument } from '../test/openapi-document.ts';

writeFileSync(new URL('../openapi.json', import.meta.url), `${await generateOpenApiDocument()}\n`);
console.log('openapi.json written');
