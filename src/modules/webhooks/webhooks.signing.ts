import { createHmac } from 'node:crypto';

/**
 * The headers of one delivery attempt (contract §5): `Signature` is the hex HMAC-SHA256 of the
 * body keyed with the webhook's signature value (what existing receivers verify); the Standard
 * Webhooks set signs `id.timestamp.body` with the same key, announced to receivers as
 * `whsec_` + base64 of the signature value.
 */
export function deliveryHeaders(
  signature: string,
  webhookId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const key = Buffer.from(signature, 'utf8');
  const plain = createHmac('sha256', key).update(body).digest('hex');
  const standard = createHmac('sha256', key)
    .update(`${webhookId}.${timestampSeconds}.${body}`)
    .digest('base64');
  return {
    'content-type': 'application/json',
    'user-agent': 'Vouch-Webhooks/1.0',
    signature: plain,
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${standard}`,
  };
}

/** The Standard Webhooks signing secret of a webhook, for off-the-shelf verifiers. */
export const standardWebhooksSecret = (signature: string) =>
  `whsec_${Buffer.from(signature, 'utf8').toString('base64')}`;

/** The body posted for an event (contract §5); its bytes are stored and re-sent on every retry. */
export function envelope(
  event: string,
  url: string,
  webhookKey: string,
  createdAt: string,
  payload: string,
): string {
  // The payload is already the JSON of the resource as the API returns it: spliced in as is.
  const head = JSON.stringify({ event, url, webhook_key: webhookKey, created_at: createdAt });
  return `${head.slice(0, -1)},"data":${payload}}`;
}
