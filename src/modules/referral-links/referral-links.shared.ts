import type { Kysely, Selectable } from 'kysely';
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

export function toReferralLink(row: ReferralLinkRow, context: LinkUrlContext) {
  return {
    id: row.key,
    key: row.key,
    url: referralLinkUrl(row, context),
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
