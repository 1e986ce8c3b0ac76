import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { fieldError } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import { customerMetrics } from '../../core/sales.ts';
import { isSelfReferral } from '../../core/self-referral.ts';
import { referralSignupFigures } from '../../core/signups.ts';
import { nowTimestamp } from '../../core/time.ts';
import { isRetryable, translateDriverError } from '../../db/errors.ts';
import { NotWrittenError } from '../../db/gated.ts';
import { pick } from '../../db/locks.ts';
import type { DB } from '../../db/tables.ts';
import { CounterFigures } from '../counters/counters.repository.ts';
import { signupMayFire } from '../fraud/fraud.service.ts';
import { linkUrlContextOf } from '../referral-links/referral-links.shared.ts';
import { recordOf, referrerRefOf } from './customers.referral.records.ts';
import * as referralRepository from './customers.referral.repository.ts';
import type { CreateReferralCustomerBody } from './customers.referral.schemas.ts';
import * as repository from './customers.repository.ts';
import type { CustomerRow } from './customers.shared.ts';
import { writeDecidedSignup } from './customers.signup-batch.ts';

/**
 * The signup writer: the data layer's port for "write this refer-a-friend signup", chosen once by
 * database. SQLite writes it in a transaction (the caller's `inTransaction`, in the write
 * batcher's group commit); PostgreSQL first tries the guarded, coalesced write below and takes
 * the transaction when that cannot answer. Driver error codes and retries stay in this file.
 */

/** A refer-a-friend customer's record as a signup answers it. */
export type ReferralCustomerRecord = ReturnType<typeof recordOf> & {
  referring_customer: ReturnType<typeof recordOf> | null;
};

export interface SignupWriter {
  write(
    body: CreateReferralCustomerBody,
    inTransaction: (trx: Kysely<DB>) => Promise<ReferralCustomerRecord>,
  ): Promise<ReferralCustomerRecord>;
}

export function signupWriterOf(ctx: ProgramContext): SignupWriter {
  const transactional: SignupWriter = {
    write: (_body, inTransaction) => ctx.database.db.transaction().execute(inTransaction),
  };
  return pick<SignupWriter>(ctx.database, {
    sqlite: transactional,
    postgres: {
      // A signup the fraud rules may act on is decided in the transaction, with its flags.
      write: async (body, inTransaction) =>
        (signupMayFire(body.email, body.context) ? undefined : (await writeSignupAtOnce(ctx, body))?.data) ??
        transactional.write(body, inTransaction),
    },
  });
}

/** Attempts of a signup written at once before it takes the transaction path. */
const AT_ONCE_ATTEMPTS = 3;

/**
 * PostgreSQL: a signup without a transaction of its own. One statement reads what it decides on
 * (the program's link settings, an id for the customer, the referrer with its links and figures),
 * and one writes the customer, its default link, the program's and the referrer's figures and its
 * event, with the program's other signups of the same turn (customers.signup-batch.ts): two round
 * trips instead of ten. A referrer's first referral is written only if the referrer's version is
 * still the one read (`executeGated`), so two first referrals at once cannot both count it; the
 * one that lost decides again. A taken `id`, `key` or `email` writes nothing and answers a 422
 * on that field, without failing in the database (db/gated.ts). Undefined when the transaction path must answer: a
 * referrer named by the key of one of its additional links, one deleted meanwhile, or after
 * AT_ONCE_ATTEMPTS lost races.
 */
async function writeSignupAtOnce(
  ctx: ProgramContext,
  body: CreateReferralCustomerBody,
): Promise<{ data: ReferralCustomerRecord } | undefined> {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  const ref = referrerRefOf(body.referring_customer, 'referring_customer');
  for (let attempt = 0; attempt < AT_ONCE_ATTEMPTS; attempt++) {
    const read = await referralRepository.readForSignup(db, programId, ref);
    const referrer = read.referrer;
    if (ref !== undefined && !referrer) {
      // `resolveReferrer` also finds a customer by the key of one of its additional links.
      if (ref.id === undefined && ref.key !== undefined) return undefined;
      throw fieldError('referring_customer', 'invalid');
    }
    if (referrer?.row.status === 'archived') throw fieldError('referring_customer', 'invalid');
    const now = nowTimestamp(ctx.clock);
    const selfReferral = referrer !== undefined && isSelfReferral(body.email, referrer.row.email);
    const row: CustomerRow = {
      id: read.customerId,
      program_id: programId,
      public_id: body.id ?? newKey(),
      key: body.key ?? newKey(),
      email: body.email ?? null,
      name: body.name ?? null,
      surname: body.surname ?? null,
      tos: false,
      approved: true,
      status: 'active',
      custom_fields: '[]',
      metadata: JSON.stringify({ date_of_birth: body.metadata?.date_of_birth ?? null }),
      tags: '[]',
      partner_id: null,
      referral_link_id: null,
      referring_customer_id: referrer ? Number(referrer.row.id) : null,
      self_referral: selfReferral,
      created_at: now,
      updated_at: now,
      deleted_at: null,
      sale_version: 0,
      fraud_flag: null,
    };
    const figures = referralSignupFigures({
      referred: referrer !== undefined,
      selfReferral,
      referrerReferralsBefore: referrer?.figures.count(customerMetrics.referralsCount) ?? 0,
    });
    const links = linkUrlContextOf('referral', read.program);
    const link = {
      program_id: programId,
      key: row.key,
      customer_id: row.id,
      created_at: now,
      updated_at: now,
    };
    const ownLink = { ...link, is_default: true, is_additional: false, domain_id: null };
    const data = {
      ...recordOf(row, [ownLink], new CounterFigures(), links),
      referring_customer: referrer
        ? recordOf(
            referrer.row,
            referrer.links,
            figuresAfter(referrer.figures, figures.referrer ?? {}),
            links,
          )
        : null,
    };
    const referrerId = referrer ? Number(referrer.row.id) : undefined;
    const referrerFigures =
      referrerId === undefined
        ? []
        : Object.entries(figures.referrer ?? {}).map(([metric, value]) => ({
            kind: 'customer' as const,
            id: referrerId,
            metric,
            value: BigInt(value),
          }));
    try {
      await writeDecidedSignup(db, programId, {
        row,
        link,
        check:
          referrerId !== undefined && referrer && figures.firstReferral
            ? { customerId: referrerId, seen: Number(referrer.row.sale_version), moves: true }
            : undefined,
        figures: { program: bigintsOf(figures.program), entities: referrerFigures },
        event: { event: 'customer.created', payload: data, createdAt: now },
      });
      return { data };
    } catch (error) {
      if (error instanceof NotWrittenError) {
        if (error.outcome === 'changed') continue;
        const field = await repository.takenCustomerField(db, programId, row);
        if (field) throw fieldError(field, 'taken');
        // The key is another customer's additional link: the transaction path says so.
        return undefined;
      }
      // The referrer was deleted meanwhile: the transaction path reads again and says so.
      if (translateDriverError(error)?.kind === 'foreign_key') return undefined;
      if (!isRetryable(error)) throw error;
    }
  }
  return undefined;
}

const bigintsOf = (figures: Record<string, number>) =>
  Object.fromEntries(Object.entries(figures).map(([metric, value]) => [metric, BigInt(value)]));

/** A referrer's figures after a signup added `deltas` to them. */
function figuresAfter(before: CounterFigures, deltas: Record<string, number>): CounterFigures {
  return CounterFigures.of([
    ...Array.from(before, ([metric, value]) => ({ metric, value, value_hi: 0 })),
    ...Object.entries(deltas).map(([metric, value]) => ({ metric, value, value_hi: 0 })),
  ]);
}
