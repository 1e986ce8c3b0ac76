import { dayOf } from '../../core/time.ts';
import { type ApiKeyScope, createApiKey, listApiKeys, revokeApiKey } from '../api-keys/api-keys.service.ts';
import type { ConsoleProgram } from './console.programs.service.ts';

/** The program's API keys as its owners manage them in the console (the admin API's operations). */

export async function keysOf(program: ConsoleProgram) {
  const keys = await listApiKeys(program.ctx, program.ctx.program.id);
  return keys.map((key) => ({
    id: key.id,
    name: key.name,
    scope: key.scope,
    created: dayOf(key.created_at),
    revoked: key.revoked_at ? dayOf(key.revoked_at) : undefined,
  }));
}

export type KeyErrors = Partial<Record<'name' | 'scope', string>>;

export async function createKey(
  program: ConsoleProgram,
  form: { name: string; scope: string },
): Promise<{ kind: 'invalid'; errors: KeyErrors } | { kind: 'created'; name: string; token: string }> {
  const errors: KeyErrors = {};
  if (form.name === '') errors.name = 'Name the key, after what will use it.';
  else if (form.name.length > 255) errors.name = 'Enter at most 255 characters.';
  const scope: ApiKeyScope | undefined =
    form.scope === 'full' || form.scope === 'read' ? form.scope : undefined;
  if (!scope) errors.scope = 'Choose what the key may do.';
  if (Object.keys(errors).length > 0 || !scope) return { kind: 'invalid', errors };
  const key = await createApiKey(program.ctx, program.ctx.program.id, { name: form.name, scope });
  return { kind: 'created', name: key.name, token: key.token };
}

/** Revokes one of the program's keys; a key of another program is not found, as everywhere. */
export async function revokeKey(program: ConsoleProgram, id: string): Promise<boolean> {
  const keys = await listApiKeys(program.ctx, program.ctx.program.id);
  const key = keys.find((k) => k.id === id);
  if (!key || key.revoked_at) return false;
  await revokeApiKey(program.ctx, key.id);
  return true;
}
