import { type DestinationStream, type Logger, pino } from 'pino';

/**
 * Query parameters whose value is a credential. Clients send keys in the query by mistake
 * (`/v1/program?api_key=vk_…`), and a request log prints the whole URL.
 */
const CREDENTIAL_PARAMETER =
  /([?&](?:api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|id[_-]?token|token|auth|client[_-]?secret|secret|password|passwd|pwd)=)[^&#\s"\\]*/gi;

/** An API key wherever it appears (`vk_<public>_<secret>`, api-keys.service.ts): only `vk_` stays. */
const API_KEY = /\bvk_[A-Za-z0-9_]+/g;

/**
 * Secrets carried in a path: a sign-in link (`…/link/{token}`) and a subscriber's portal
 * (`/portal/{program}/{code}/{secret}`).
 */
const SIGN_IN_LINK = /(\/link\/)[^/?#\s"\\]+/g;
const SUBSCRIBER_PORTAL = /(\/portal\/[^/?#\s"\\]+\/[^/?#\s"\\]+\/)[^/?#\s"\\]+/g;

const REDACTED = '[redacted]';

/** One serialized log line with every credential-looking value replaced. */
export function redactCredentials(line: string): string {
  return line
    .replace(CREDENTIAL_PARAMETER, `$1${REDACTED}`)
    .replace(API_KEY, `vk_${REDACTED}`)
    .replace(SIGN_IN_LINK, `$1${REDACTED}`)
    .replace(SUBSCRIBER_PORTAL, `$1${REDACTED}`);
}

/**
 * The logger of every Vouch process. Redaction works on the written line rather than on chosen
 * fields, so a URL in a message, an error or a field added later is covered too.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, hooks: { streamWrite: redactCredentials } };
  return destination ? pino(options, destination) : pino(options);
}
