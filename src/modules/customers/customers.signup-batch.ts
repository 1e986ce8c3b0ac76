import type { Kysely } from 'kysely';
import { batchChecks, batchFigures, firstBatch, type VersionCheck } from '../../core/guarded-batches.ts';
import type { SaleFigures } from '../../core/sales.ts';
import { coalescedWrites } from '../../db/coalescer.ts';
import { executeGatedOrThrow } from '../../db/gated.ts';
import type { BoundStatement } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { type DomainEvent, eventsStatement } from '../../outbox/outbox.ts';
import { figureWrites, versionGuards } from '../counters/counters.figures.repository.ts';
import {
  defaultCustomerLinksStatement,
  type NewDefaultCustomerLink,
} from '../referral-links/referral-links.service.ts';
import * as repository from './customers.repository.ts';
import type { CustomerRow } from './customers.shared.ts';

/**
 * PostgreSQL: refer-a-friend signups decided without a transaction (customers.referral.ts),
 * written with the program's other such signups of the same turn of the event loop in one
 * statement (db/coalescer.ts): the program's figures summed, the customers and their default
 * links as one insert each, the referrers' figures merged, the events. A first referral still
 * applies only while its referrer's version is the one read. When the statement fails for any
 * reason (a taken `id`, `key` or `email`, a lost race), each signup is written alone and answers
 * its own outcome; written alone, a taken key or a lost race fails no statement (db/gated.ts).
 */

/** A signup decided without a transaction, ready to be written. */
export interface DecidedSignup {
  row: CustomerRow;
  link: NewDefaultCustomerLink;
  /** A referrer's first referral checks the referrer's version and moves it on. */
  check: VersionCheck | undefined;
  /** The program's figures and the referrer's (entities). */
  figures: SaleFigures;
  event: DomainEvent;
}

/** Signups in one statement at most: about 400 values of the customers' insert. */
const MAX_BATCH = 16;

const checkOf = (signup: DecidedSignup) => signup.check;

function writeSignups(db: Kysely<DB>, programId: number, signups: readonly DecidedSignup[]): Promise<void> {
  const { program, entities } = batchFigures(
    signups.map((signup) => ({ at: signup.row.created_at, figures: signup.figures })),
  );
  // The customers hold the keys (`id`, `key`, `email`): the rest is written only when every one
  // of them was. Then the figures, the program's before the referrers': the order every writer
  // takes them in.
  const [keyed] = repository.customersInsertStatement(
    db,
    signups.map((signup) => signup.row),
  );
  if (!keyed) return Promise.resolve();
  const statements = [
    ...figureWrites(db, programId, { program, entities }),
    ...defaultCustomerLinksStatement(
      db,
      signups.map((signup) => signup.link),
    ),
    ...eventsStatement(
      db,
      programId,
      signups.map((signup) => signup.event),
    ),
  ].filter((statement): statement is BoundStatement => statement !== undefined);
  return executeGatedOrThrow(db, {
    guards: versionGuards(db, programId, batchChecks(signups, checkOf)),
    keyed: { statement: keyed, rows: signups.length },
    statements,
  });
}

/** Writes `signup` (with others of its program when they arrive together); rejects as its own write would. */
export const writeDecidedSignup = coalescedWrites<DecidedSignup>(
  (queue) => firstBatch(queue, MAX_BATCH, checkOf),
  writeSignups,
);
