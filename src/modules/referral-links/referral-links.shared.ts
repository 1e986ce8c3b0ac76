import type { Kysely, Selectable } from 'kysely';
import type { Config } from '../../config.ts';
import type { ProgramContext } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import type { ProgramType } from '../../core/program-types.ts';
import type { ReferralLinksTable } from '../../db/domain-tables.ts';
import type { DB } from '../../db/tables.ts';
import { readProgram } from '../program/program.service.ts';
import { listLinkDomains } from './referral-links.repository.ts';

/** How a referral link's URL is built, the same for partners and refer-a-friend customers. */
export type ReferralLinkRow = Selectable<ReferralLinksTable>;

export function linkNotFound(): AppError {
  return new AppError('not_found', 'Referral link not found.');
}

/** What a link URL is made of: the program website, the query parameter, extra domains. */
export interface LinkUrlContext {
  website: string | null;
  /** `aff` for partners, `ref` for customers unless the program says otherwise. */
  parameter: string;
  /** Additional link domains by id (only those the links at hand use need be present). */
  domains: ReadonlyMap<number, string>;
}

/** `{website}?aff={key}`; a query the website already has is kept (`&aff=`). */
export function linkUrl(base: string | null, parameter: string, key: string): string {
  const site = base ?? '';
  const separator = site.includes('?') ? '&' : '?';
  return `${site}${separator}${parameter}=${encodeURIComponent(key)}`;
}

/** The origin of a link domain as stored (`go.example.com` or a full URL). */
export function domainUrl(domain: string): string {
  return /^https?:\/\//i.test(domain) ? domain : `https://${domain}`;
}

export function referralLinkUrl(
  row: Pick<ReferralLinkRow, 'key' | 'domain_id' | 'is_additional'>,
  context: LinkUrlContext,
) {
  const domain = row.domain_id === null ? undefined : context.domains.get(Number(row.domain_id));
  return linkUrl(domain ? domainUrl(domain) : context.website, context.parameter, row.key);
}

/** Vouch's own address for the links it serves: `PUBLIC_URL`, else the address it listens on. */
export function vouchBaseUrl(config: Pick<Config, 'publicUrl' | 'host' | 'port'>): string {
  return config.publicUrl ?? `http://${config.host}:${config.port}`;
}

/**
 * `{Vouch}/r/{program}/{key}`: Vouch counts the click and sets the cookie itself, then redirects to
 * the link's target, so it counts on any site, with or without the tracking script. (`url`, the
 * website with `?aff=key`, counts only where the script runs.) The program's public id keeps keys
 * that two programs share apart.
 */
export function trackingUrl(ctx: Pick<ProgramContext, 'config' | 'program'>, key: string): string {
  return `${vouchBaseUrl(ctx.config)}/r/${ctx.program.publicId}/${encodeURIComponent(key)}`;
}

export function toReferralLink(
  row: ReferralLinkRow,
  context: LinkUrlContext,
  ctx: Pick<ProgramContext, 'config' | 'program'>,
) {
  return {
    id: row.key,
    key: row.key,
    url: referralLinkUrl(row, context),
    tracking_url: trackingUrl(ctx, row.key),
    default: Boolean(row.is_default),
    is_additional: Boolean(row.is_additional),
    direct_tracking: Boolean(row.direct_tracking),
    direct_tracking_redirect: Boolean(row.direct_tracking_redirect),
    direct_tracking_redirect_url: row.direct_tracking_redirect_url,
  };
}

/** The program's website and referral parameter, plus its additional link domains. */
export async function loadLinkUrlContext(
  db: Kysely<DB>,
  programId: number,
  type: ProgramType,
  options: { withDomains?: boolean } = {},
): Promise<LinkUrlContext> {
  const program = await readProgram(db, programId);
  const domains = new Map<number, string>();
  if (options.withDomains !== false) {
    const rows = await listLinkDomains(db, programId);
    for (const row of rows) domains.set(Number(row.id), row.domain);
  }
  return linkUrlContextOf(type, program, domains);
}

/**
 * The link URL context of a program row read elsewhere (a customer's read takes the program's
 * website and settings in its own statement): the same rule as `loadLinkUrlContext`.
 */
export function linkUrlContextOf(
  type: ProgramType,
  program: { website: string | null; settings: string } | undefined,
  domains: ReadonlyMap<number, string> = new Map(),
): LinkUrlContext {
  const settings = programSettingsOf(type, program?.settings ?? '{}');
  const parameter = typeof settings.referral_parameter === 'string' ? settings.referral_parameter : 'aff';
  return { website: program?.website ?? null, parameter, domains };
}
