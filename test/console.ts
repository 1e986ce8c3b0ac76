import assert from 'node:assert/strict';
import { addMember, createUser } from '../src/modules/console/console.service.ts';
import type { TestServer } from './harness.ts';
import { locationOf, PageClient } from './portal-client.ts';

/** Owner console helpers for tests: users made as the CLI makes them, signed-in clients, forms. */

export const CONSOLE_PASSWORD = 'Console123';

export type ConsoleRoleName = 'owner' | 'admin' | 'viewer';

/** A console user: an operator, or with `member` a member of that program in that role. */
export async function consoleUser(
  server: TestServer,
  email: string,
  member?: { program: { publicId: string }; role: ConsoleRoleName },
) {
  const created = await createUser(server.deps, {
    email,
    password: CONSOLE_PASSWORD,
    operator: member === undefined,
  });
  assert.equal(created.kind, 'created');
  if (created.kind === 'created' && member)
    await addMember(server.deps, member.program.publicId, created.user.id, member.role);
}

/** A browser-like client signed in to the console as `email`. */
export async function signedInConsole(server: () => TestServer, email: string) {
  const client = new PageClient(server);
  const reply = await client.submit('/admin/sign-in', { email, password: CONSOLE_PASSWORD });
  assert.equal(reply.status, 303, reply.text);
  assert.equal(locationOf(reply), '/admin/programs');
  return client;
}

/** A new member of `program` in `role`, signed in. */
export async function memberClient(
  server: () => TestServer,
  program: { publicId: string },
  email: string,
  role: ConsoleRoleName,
) {
  await consoleUser(server(), email, { program, role });
  return signedInConsole(server, email);
}

/** Every field of the settings form as the page shows it: what a browser would post unchanged. */
export function settingsFormFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(
    /<input id="setting-[^"]*" name="([^"]+)" type="(text|checkbox)"([^>]*)>/g,
  )) {
    const [, name = '', type, rest = ''] = match;
    if (type === 'checkbox') {
      if (/\bchecked\b/.test(rest)) fields[name] = 'yes';
    } else fields[name] = /value="([^"]*)"/.exec(rest)?.[1] ?? '';
  }
  for (const match of html.matchAll(/<select id="setting-[^"]*" name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const [, name = '', options = ''] = match;
    fields[name] = /<option value="([^"]*)" selected/.exec(options)?.[1] ?? '';
  }
  return fields;
}
