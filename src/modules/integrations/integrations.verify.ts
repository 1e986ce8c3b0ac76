import type { Paddle } from '@paddle/paddle-node-sdk';
import type Stripe from 'stripe';
import type { BillingProvider } from '../../core/billing.ts';
import { AppError } from '../../core/errors.ts';

/**
 * Signatures are checked by each processor's own library on the raw body, decoded once as UTF-8
 * (both libraries take the body as text: Stripe's decodes a Buffer itself, twice, before its HMAC
 * and its JSON.parse; the text is also what the events log keeps), with its default
 * tolerance for the signature's timestamp (Stripe: five minutes; Paddle's SDK: five seconds). The
 * clients are made only for their webhook helpers: no API key is used and nothing is called.
 *
 * The libraries are loaded on first use, not with the app: together they are over a thousand
 * module files (Paddle's SDK alone some 780), about 0.8 s of CPU at every start of a process that
 * may never receive an event (the CLI, a worker, each test server). `warmUpVerifiers` loads them
 * in the background once the server listens, so a first event does not wait for them.
 */
let stripe: Promise<Stripe> | undefined;
let paddle: Promise<Paddle> | undefined;

const stripeClient = () =>
  (stripe ??= import('stripe').then(
    ({ default: StripeClient }) => new StripeClient('sk_unused_webhooks_only'),
  ));
const paddleClient = () =>
  (paddle ??= import('@paddle/paddle-node-sdk').then(
    ({ Paddle: PaddleClient }) => new PaddleClient('unused_webhooks_only'),
  ));

/** Loads both processors' libraries ahead of the first event. */
export async function warmUpVerifiers(): Promise<void> {
  await Promise.all([stripeClient(), paddleClient()]);
}

export const signatureHeaders = {
  stripe: 'stripe-signature',
  paddle: 'paddle-signature',
} as const satisfies Record<BillingProvider, string>;

const badSignature = (header: string) =>
  new AppError(
    'bad_request',
    `The ${header} header is missing, malformed, too old or does not match the body and the integration's webhook secret.`,
  );

const badJson = () => new AppError('bad_request', 'The request body is not valid JSON.');

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badJson();
  }
}

async function verifyStripe(body: string, signature: string, secret: string): Promise<unknown> {
  const client = await stripeClient();
  try {
    return client.webhooks.constructEvent(body, signature, secret);
  } catch (error) {
    // The library parses the body after the signature holds: a SyntaxError is a signed non-JSON body.
    if (error instanceof SyntaxError) throw badJson();
    throw badSignature(signatureHeaders.stripe);
  }
}

async function verifyPaddle(body: string, signature: string, secret: string): Promise<unknown> {
  const client = await paddleClient();
  let valid: boolean;
  try {
    valid = await client.webhooks.isSignatureValid(body, secret, signature);
  } catch {
    valid = false;
  }
  if (!valid) throw badSignature(signatureHeaders.paddle);
  return parseJson(body);
}

/** The verified event, parsed from the body as received; a 400 naming the signature header or the JSON otherwise. */
export function verifyEvent(
  provider: BillingProvider,
  body: string,
  signature: string | undefined,
  secret: string,
): Promise<unknown> {
  if (!signature) return Promise.reject(badSignature(signatureHeaders[provider]));
  return provider === 'stripe'
    ? verifyStripe(body, signature, secret)
    : verifyPaddle(body, signature, secret);
}
