import { randomBytes } from 'node:crypto';
import type { Deps } from '../../context.ts';
import { hashPassword } from '../../core/passwords.ts';
import { TOKEN_MINUTES } from '../../core/portal.ts';
import { formatTimestamp, nowTimestamp } from '../../core/time.ts';
import { queueServerEmail } from '../../outbox/outbox.ts';
import { escapeText } from '../../pages/rendered.tsx';
import {
  accountProblems,
  digest,
  emailProblem,
  startSession,
  TOKEN_SHAPE,
} from './console.accounts.service.ts';
import * as repository from './console.repository.ts';

/**
 * Password reset for console users: a one-time link for 15 minutes, e-mailed through the outbox
 * as an e-mail of no program. Asking for one says the same whether the address has an account
 * or not; using it ends every other session of the user.
 */

export { TOKEN_MINUTES };

export async function sendPasswordReset(deps: Deps, email: string, links: { baseUrl: string }) {
  if (emailProblem(email)) return;
  const db = deps.database.db;
  const user = await repository.findUserByEmail(db, email);
  if (!user) return;
  const token = randomBytes(32).toString('base64url');
  const now = nowTimestamp(deps.clock);
  const url = `${links.baseUrl}/admin/reset/${token}`;
  const closing = `It works once, for ${TOKEN_MINUTES} minutes. If you did not ask for it, ignore this e-mail.`;
  await db.transaction().execute(async (trx) => {
    await repository.insertPasswordReset(trx, {
      user_id: Number(user.id),
      token_hash: digest(token),
      created_at: now,
      expires_at: formatTimestamp(deps.clock.nowMicros() + TOKEN_MINUTES * 60e6),
    });
    await queueServerEmail(
      trx,
      {
        to: user.email,
        subject: 'Reset your Vouch console password',
        text: `Hello,\n\nUse this link to choose a new password for the Vouch console:\n\n${url}\n\n${closing}\n`,
        html: `<p>Hello,</p><p>Use this link to choose a new password for the Vouch console:</p><p><a href="${escapeText(url)}">${escapeText(url)}</a></p><p>${closing}</p>`,
      },
      now,
    );
  });
}

export async function resetLinkUsable(deps: Deps, token: string): Promise<boolean> {
  if (!TOKEN_SHAPE.test(token)) return false;
  return (
    (await repository.findUsableReset(deps.database.db, digest(token), nowTimestamp(deps.clock))) !==
    undefined
  );
}

export type ResetOutcome =
  | { kind: 'gone' }
  | { kind: 'invalid'; error: string }
  | { kind: 'signed_in'; token: string };

/** Sets the new password (the strength rule), ends the user's sessions and signs them in anew. */
export async function resetPassword(deps: Deps, token: string, password: string): Promise<ResetOutcome> {
  if (!TOKEN_SHAPE.test(token)) return { kind: 'gone' };
  const db = deps.database.db;
  const found = await repository.findUsableReset(db, digest(token), nowTimestamp(deps.clock));
  if (!found) return { kind: 'gone' };
  const user = await repository.findUserById(db, Number(found.user_id));
  if (!user) return { kind: 'gone' };
  const problem = accountProblems({ email: user.email, password }).password;
  if (problem) return { kind: 'invalid', error: problem };
  const hash = await hashPassword(password, deps.config.passwordHashing);
  const now = nowTimestamp(deps.clock);
  if (!(await repository.useReset(db, digest(token), now))) return { kind: 'gone' };
  await repository.setPasswordHash(db, Number(user.id), hash, now);
  await repository.deleteSessionsOf(db, Number(user.id));
  return { kind: 'signed_in', token: await startSession(deps, { ...user, password_hash: hash }) };
}
