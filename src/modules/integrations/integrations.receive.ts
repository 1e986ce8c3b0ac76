import { type Deps, keylessContext } from '../../context.ts';
import { type BillingProvider, billingReaders } from '../../core/billing.ts';
import { AppError } from '../../core/errors.ts';
import { nowTimestamp } from '../../core/time.ts';
import { readPageProgram } from '../program/program.service.ts';
import { receiveAtOnce } from './integrations.at-once.ts';
import { rerunStoredEvent, runClaimedEvent } from './integrations.events.ts';
import * as repository from './integrations.repository.ts';
import { deliverySecret, presentEvent } from './integrations.service.ts';
import { verifyEvent } from './integrations.verify.ts';

/**
 * `POST /integrations/{provider}/{program public id}`: what a processor delivers. Refused before
 * anything is written: an unknown program or an integration that is off (404), a signature that
 * does not hold or a body that is not JSON (400). A verified event is claimed once per processor
 * event id: a redelivery, or the same event arriving many times at once, answers 200 with the
 * first outcome and changes nothing. An event that can never be applied is recorded `failed` and
 * answered 200, so the processor stops; a passing fault (the database away) answers 503 and
 * forgets the claim, so the processor's retry runs it.
 */
export async function receiveProcessorEvent(
  deps: Deps,
  provider: BillingProvider,
  programPublicId: string,
  raw: Buffer,
  signature: string | undefined,
) {
  try {
    return await receive(deps, provider, programPublicId, raw, signature);
  } catch (error) {
    if (error instanceof AppError) throw error;
    deps.log.warn({ err: error, provider }, 'a processor event met a passing fault');
    throw new AppError('unavailable', 'Vouch cannot record the event right now; deliver it again later.');
  }
}

async function receive(
  deps: Deps,
  provider: BillingProvider,
  programPublicId: string,
  raw: Buffer,
  signature: string | undefined,
) {
  const program = await readPageProgram(deps, { publicId: programPublicId });
  if (!program || program.type === 'newsletter') throw new AppError('not_found', 'Program not found.');
  const db = deps.database.db;
  const secret = await deliverySecret(deps, program.id, provider);
  if (secret === undefined) {
    throw new AppError('not_found', `The ${provider} integration of this program is not set up or is off.`);
  }
  // Decoded once: the libraries verify and parse this text, and the log keeps it.
  const body = raw.toString('utf8');
  const event = await verifyEvent(provider, body, signature, secret);
  const envelope = billingReaders[provider].envelope(event);
  if (!envelope) throw new AppError('bad_request', 'The event has no id or type.');
  const ctx = keylessContext(deps, program);
  const now = nowTimestamp(deps.clock);
  const claim = {
    program_id: program.id,
    provider,
    event_id: envelope.eventId,
    type: envelope.type,
    status: 'processing' as const,
    reason: null,
    payload: body,
    transaction_key: null,
    customer_key: null,
    processor_customer: null,
    awaits: null,
    once_id: null,
    created_at: now,
    updated_at: now,
  };
  const atOnce = await receiveAtOnce(ctx, provider, claim, billingReaders[provider].action(event));
  if (atOnce) return { ...atOnce, duplicate: false };
  const claimed = await repository.claimEvent(db, claim);
  if (!claimed) {
    const stored = await repository.findEvent(db, program.id, provider, envelope.eventId);
    if (!stored) throw new Error('a claimed event vanished');
    // A claim abandoned by a stopped process is taken over; a live one answers as a duplicate.
    const rerun =
      stored.status === 'processing' ? await rerunStoredEvent(ctx, provider, stored.id, []) : undefined;
    const after = rerun ? await repository.findEventById(db, program.id, stored.id) : stored;
    return { ...received(after ?? stored), duplicate: rerun === undefined };
  }
  await runClaimedEvent(ctx, provider, claimed, event, () =>
    repository.releaseEvent(db, program.id, claimed.id),
  );
  const after = await repository.findEventById(db, program.id, claimed.id);
  return { ...received(after ?? claimed), duplicate: false };
}

function received(row: repository.EventRow) {
  const shown = presentEvent(row);
  return {
    id: shown.id,
    event_id: shown.event_id,
    type: shown.type,
    status: shown.status,
    reason: shown.reason,
  };
}
