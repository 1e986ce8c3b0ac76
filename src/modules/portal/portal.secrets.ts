import { createHash, randomBytes } from 'node:crypto';
import type { Deps, ProgramContext } from '../../context.ts';
import { TOKEN_MINUTES } from '../../core/portal.ts';
import { formatTimestamp, nowTimestamp } from '../../core/time.ts';
import { queueEmail } from '../../outbox/outbox.ts';
import { escapeText } from '../../pages/rendered.tsx';
import * as repository from './portal.repository.ts';
import type { PortalOwnerKind, PortalTokensTable } from './portal.tables.ts';

/**
 * The secrets both portals hand out: a random 256-bit token for the cookie or the e-mailed link,
 * of which the database keeps the SHA-256 only; and the e-mail that carries a one-time link.
 */

export const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');
export const newSecret = () => randomBytes(32).toString('base64url');
/** What `newSecret` makes: anything else names no token, and costs no query. */
export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
export const minutesFromNow = (deps: Deps, minutes: number) =>
  formatTimestamp(deps.clock.nowMicros() + minutes * 60e6);

/** What a one-time link e-mail says and whom it signs in. */
export interface OneTimeLink {
  purpose: PortalTokensTable['purpose'];
  owner: { kind: PortalOwnerKind; id: number };
  to: string;
  name: string | null;
  /** The portal's URL: the link is `{portalUrl}/{link|reset}/{token}`. */
  portalUrl: string;
  /** "the Acme partner portal". */
  portalName: string;
  subject: string;
}

/** Stores a one-time token and queues its e-mail through the outbox, in one transaction. */
export async function mailOneTimeLink(ctx: ProgramContext, link: OneTimeLink) {
  const token = newSecret();
  const now = nowTimestamp(ctx.clock);
  const url = `${link.portalUrl}/${link.purpose === 'sign_in' ? 'link' : 'reset'}/${token}`;
  const what = link.purpose === 'sign_in' ? 'sign in to' : 'choose a new password for';
  const hello = `Hello${link.name ? ` ${link.name}` : ''},`;
  const closing = `It works once, for ${TOKEN_MINUTES} minutes. If you did not ask for it, ignore this e-mail.`;
  await ctx.database.db.transaction().execute(async (trx) => {
    await repository.insertToken(trx, {
      program_id: ctx.program.id,
      token_hash: digest(token),
      purpose: link.purpose,
      owner_kind: link.owner.kind,
      owner_id: link.owner.id,
      created_at: now,
      expires_at: minutesFromNow(ctx, TOKEN_MINUTES),
    });
    await queueEmail(
      trx,
      ctx.program.id,
      {
        to: link.to,
        subject: link.subject,
        text: `${hello}\n\nUse this link to ${what} ${link.portalName}:\n\n${url}\n\n${closing}\n`,
        html: `<p>${escapeText(hello)}</p><p>Use this link to ${what} ${escapeText(link.portalName)}:</p><p><a href="${escapeText(url)}">${escapeText(url)}</a></p><p>${closing}</p>`,
      },
      now,
    );
  });
}

/**
 * Whether an e-mailed link can still be used. Its page shows the button only then: a used or
 * expired link says so at once and offers a new one, instead of a button that cannot work.
 */
export async function oneTimeLinkUsable(
  ctx: ProgramContext,
  token: string,
  purpose: PortalTokensTable['purpose'],
): Promise<boolean> {
  if (!TOKEN_SHAPE.test(token)) return false;
  const db = ctx.database.db;
  const found = await repository.findUsableToken(
    db,
    ctx.program.id,
    digest(token),
    purpose,
    nowTimestamp(ctx.clock),
  );
  return found !== undefined;
}
