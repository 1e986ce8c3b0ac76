// `npm run sdk:generate`: rewrites the SDK's types and the MCP tools' input schemas from
// openapi.json (run it after `npm run openapi`). Never edit the generated files by hand.
import { writeFileSync } from 'node:fs';
import { generateSdkFiles } from './sdk-generation.ts';

for (const [path, text] of Object.entries(await generateSdkFiles())) {
  writeFileSync(new URL(`../${path}`, import.meta.url), text);
  console.log(`${path} written`);
}
