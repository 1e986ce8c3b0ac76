import { pino } from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { systemClock } from '../src/core/time.ts';
import { openDatabase } from '../src/db/database.ts';
import { assembleDeps } from '../src/deps.ts';

/** The OpenAPI document as the app generates it, formatted as openapi.json stores it. */
export async function generateOpenApiDocument(): Promise<string> {
  const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', ADMIN_TOKEN: 'openapi-generation-token' });
  const database = await openDatabase(config.databaseUrl);
  const app = await buildApp(
    assembleDeps({ database, clock: systemClock, log: pino({ level: 'silent' }), config }),
  );
  await app.ready();
  const document = JSON.stringify(app.swagger(), null, 2);
  await app.close();
  await database.close();
  return document;
}
