import { createHmac } from 'node:crypto';
import type { ProgramType } from './program-types.ts';

/**
 * The rules of click tracking (issue 12), pure: which requests count as a click, which cookie a
 * program type sets and whether a click replaces it (attribution), where a redirect may go, and
 * how a visitor is named without keeping its address.
 */

export type Attribution = 'last_click' | 'first_click';
export const attributions: readonly Attribution[] = ['last_click', 'first_click'];

/** The cookie carrying the referrer's key (spec: `service_partner` / `service_referral`). */
export const cookieNameByType = {
  affiliate: 'vouch_partner',
  referral: 'vouch_referral',
  newsletter: undefined,
} as const satisfies Record<ProgramType, string | undefined>;

/** Longest key a link may have to be looked up at all; longer ones are simply unknown. */
export const MAX_LINK_KEY_LENGTH = 255;

/** Link keys as Vouch stores them: printable, no slash, no control characters. */
export function isPlausibleLinkKey(key: string): boolean {
  if (key.length === 0 || key.length > MAX_LINK_KEY_LENGTH) return false;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code < 0x20 || code === 0x7f || code === 0x2f || code === 0x5c) return false;
  }
  return true;
}

/**
 * Crawlers, link unfurlers and monitoring tools by user agent. Headless browsers are not on the
 * list: they are how some people browse, and how Vouch tests itself.
 */
const BOT =
  /bot\b|bot\/|crawl|spider|slurp|bingpreview|facebookexternalhit|embedly|quora link preview|outbrain|pinterest|vkshare|w3c_validator|whatsapp|skypeuripreview|nuzzel|discordbot|telegrambot|slackbot|googlebot|applebot|yandex|baiduspider|duckduckbot|semrush|ahrefs|mj12bot|petalbot|bytespider|gptbot|curl\/|wget\/|python-requests|python-urllib|go-http-client|java\/|okhttp|libwww-perl|httpclient|headlesschrome.*lighthouse|pingdom|uptimerobot|statuscake/i;

export function isBot(userAgent: string | undefined): boolean {
  if (!userAgent || userAgent.trim() === '') return true;
  return BOT.test(userAgent);
}

/** Prefetch and preview requests (`Purpose`, `Sec-Purpose`, `X-Moz`, `X-Purpose`) are not visits. */
export function isPrefetch(headers: Record<string, string | string[] | undefined>): boolean {
  for (const name of ['purpose', 'sec-purpose', 'x-moz', 'x-purpose']) {
    const value = headers[name];
    const text = Array.isArray(value) ? value.join(',') : value;
    if (text && /prefetch|preview|prerender/i.test(text)) return true;
  }
  return false;
}

/** Whether a request for a link is counted at all (the 24-hour rule comes after). */
export function isCountable(method: string, headers: Record<string, string | string[] | undefined>): boolean {
  if (method !== 'GET' && method !== 'POST') return false;
  const agent = headers['user-agent'];
  return !isBot(Array.isArray(agent) ? agent[0] : agent) && !isPrefetch(headers);
}

/** Whether a click sets the cookie: always with last click, only over no cookie with first click. */
export function shouldSetCookie(attribution: Attribution, existing: string | undefined): boolean {
  return attribution === 'last_click' || !existing;
}

export function attributionOf(settings: Record<string, unknown>): Attribution {
  return settings.attribution === 'first_click' ? 'first_click' : 'last_click';
}

/** Only http(s) URLs are redirect targets; anything else stored is ignored. */
export function safeRedirectUrl(stored: string | null | undefined): string | undefined {
  if (!stored) return undefined;
  try {
    const url = new URL(stored);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** `{website}?aff={key}`, keeping a query the website already has. */
export function landingUrl(website: string, parameter: string, key: string): string | undefined {
  const base = safeRedirectUrl(website);
  if (!base) return undefined;
  const url = new URL(base);
  url.searchParams.set(parameter, key);
  return url.toString();
}

/**
 * Where `/r/{key}` sends a visitor: the link's direct-tracking URL when it has one, else the
 * program website with the referral parameter; an unknown link goes to the website without it.
 * Every target is a stored URL, never one from the request (no open redirect).
 */
export function redirectTarget(input: {
  website: string | null;
  parameter: string;
  link: { key: string; redirectUrl: string | null } | undefined;
}): string | undefined {
  if (input.link) {
    const direct = safeRedirectUrl(input.link.redirectUrl);
    if (direct) return direct;
    if (input.website) return landingUrl(input.website, input.parameter, input.link.key);
    return undefined;
  }
  return safeRedirectUrl(input.website);
}

/** The UTC day a salt serves, and the day before (a visitor's hash is checked under both). */
export function saltDays(now: Date): { today: string; yesterday: string } {
  const today = now.toISOString().slice(0, 10);
  const before = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
  return { today, yesterday: before };
}

/** A visitor's name under one day's salt: the address and user agent are never kept. */
export function visitorHash(salt: string, address: string, userAgent: string): string {
  return createHmac('sha256', salt).update(address).update('\u0000').update(userAgent).digest('base64url');
}

/** A click is counted again once 24 hours have passed since the one that was counted. */
export const COUNT_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The cookie that keeps a click's id on the visitor's browser (issue 27). */
export const CLICK_COOKIE = 'vouch_click';

/** Longest landing URL a click keeps. */
export const MAX_LANDING_URL_LENGTH = 2048;

/**
 * The landing URL a click keeps: an absolute http(s) URL without its fragment (never sent to a
 * server, so never a rule's business); undefined when `raw` is not one.
 */
export function clickLandingUrl(raw: string): string | undefined {
  if (raw.length > MAX_LANDING_URL_LENGTH) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  return url.toString();
}
