import type { FastifyReply, FastifyRequest } from 'fastify';
import { PageError, pageDeps, pageNotFound, seeOther, setSessionCookie } from '../../pages/plugin.tsx';
import { type ConsoleUser, currentUser, SESSION_DAYS } from './console.accounts.service.ts';
import { type ConsoleProgram, consoleProgram, mayWrite } from './console.programs.service.ts';
import { type Section, showsSection } from './console.sections.service.ts';

/** What every console page reads of a request: the session cookie, the user, the program of the URL. */

export const SESSION_COOKIE = 'vouch_console';
export const CONSOLE_PATH = '/admin';

export type ProgramParams = { program: string };

export const sessionToken = (request: FastifyRequest) => request.cookies[SESSION_COOKIE];

export const setSession = (request: FastifyRequest, reply: FastifyReply, token: string) =>
  setSessionCookie(request, reply, {
    name: SESSION_COOKIE,
    value: token,
    path: CONSOLE_PATH,
    days: SESSION_DAYS,
  });

export const clearSession = (reply: FastifyReply) =>
  reply.clearCookie(SESSION_COOKIE, { path: CONSOLE_PATH });

/** The signed-in user; otherwise the browser is sent to the sign-in page (and undefined answered). */
export async function signedIn(
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<ConsoleUser | undefined> {
  const user = await currentUser(pageDeps(request), sessionToken(request));
  if (!user) {
    if (sessionToken(request)) clearSession(reply);
    seeOther(reply, `${CONSOLE_PATH}/sign-in`);
  }
  return user;
}

/** The program of the URL as the user may see it; another program's URL is the 404 page. */
export async function programOf(
  request: FastifyRequest<{ Params: ProgramParams }>,
  user: ConsoleUser,
): Promise<ConsoleProgram> {
  const program = await consoleProgram(pageDeps(request), user, request.params.program, request.ip);
  if (!program) throw pageNotFound();
  return program;
}

/** A page of `section`: a program whose menu has no such section (by its type) answers 404. */
export function sectionShown(program: ConsoleProgram, section: Section) {
  if (!showsSection(program, section)) throw pageNotFound();
}

/** A write from the console: refused with 403 for a role that only reads. */
export function checkWrite(program: ConsoleProgram) {
  if (!mayWrite(program.role))
    throw new PageError(403, 'read-only role', {
      title: 'Not allowed',
      text: 'Your role in this program lets you read, not change. Ask an owner of the program.',
    });
}

/** The values of a repeated form field (checkboxes of the selected rows), each trimmed. */
export function formList(body: unknown, name: string): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const value = (body as Record<string, unknown>)[name];
  const values = Array.isArray(value) ? value : [value];
  return values.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim());
}

/** A page number from the query: a whole number from 1, else 1. */
export function pageNumber(value: unknown): number {
  const page = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : 1;
  return Math.max(1, page);
}

/**
 * The preamble of a program's page or form: the signed-in user (else undefined, the browser sent to
 * sign in) and the program of the URL, refused as 404 unless affiliate when `affiliate`, and as 403
 * for a read-only role when `write`.
 */
export async function programRequest(
  request: FastifyRequest<{ Params: ProgramParams }>,
  reply: FastifyReply,
  options: { section?: Section; write?: boolean } = {},
): Promise<{ user: ConsoleUser; program: ConsoleProgram } | undefined> {
  const user = await signedIn(request, reply);
  if (!user) return undefined;
  const program = await programOf(request, user);
  if (options.section) sectionShown(program, options.section);
  if (options.write) checkWrite(program);
  return { user, program };
}
