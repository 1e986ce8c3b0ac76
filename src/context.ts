import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { ProgramType } from './core/program-types.ts';
import type { SecretBox } from './core/secret-box.ts';
import type { Clock } from './core/time.ts';
import type { Database } from './db/database.ts';

/** What a process entry opens before anything else: database, clock, logger, configuration. */
export interface Resources {
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  config: Config;
}

/** Sends a queued webhook delivery at once, outside the worker's loop (the API's test and retry). */
export interface WebhookSender {
  /** Attempts the delivery now and records it: the attempt's id, or `'busy'` when it is claimed elsewhere. */
  sendNow(deliveryId: number): Promise<number | 'busy' | undefined>;
  close(): void;
}

/**
 * What every service and process entry shares: built once per app in main.ts, cli.ts or a test
 * (deps.ts), so two apps in one process share nothing. The app closes what it holds.
 */
export interface Deps extends Resources {
  webhookSender: WebhookSender;
  /** Seals and opens secrets kept at rest (webhook signing secrets) with the server key. */
  secrets: SecretBox;
}

/** The program an API key belongs to, resolved by authentication. */
export interface AuthenticatedProgram {
  id: number;
  publicId: string;
  type: ProgramType;
  keyId: number;
  /** The key's public id: names its rate-limit budget, unique across deployments. */
  keyPublicId: string;
  scope: 'full' | 'read';
}

/** What a `/v1` service function receives: the deps plus the caller's program. */
export interface ProgramContext extends Deps {
  program: AuthenticatedProgram;
}

/**
 * The context of work no API key asked for: a public page acting for the program its URL names, a
 * processor's delivery, the worker's passes, an operator's console action. It acts for the whole
 * program (full scope) and names no key.
 */
export function keylessContext(
  deps: Deps,
  program: { id: number; public_id: string; type: ProgramType },
): ProgramContext {
  return {
    ...deps,
    program: {
      id: program.id,
      publicId: program.public_id,
      type: program.type,
      keyId: 0,
      keyPublicId: '',
      scope: 'full',
    },
  };
}
