import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Config } from './config.ts';
import { SecretBox } from './core/secret-box.ts';

/**
 * Where the server key comes from: `SECRET_KEY` when set (required on PostgreSQL, where every
 * instance must share it); on SQLite without it, a key file beside the database
 * (`<database>.key`, created at first start with mode 600) so that `npm start` needs nothing; a
 * throw-away key for `sqlite::memory:`.
 */
export function secretKeyFile(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const path = databaseUrl.slice('sqlite:'.length);
  return path === ':memory:' ? undefined : `${path}.key`;
}

export const newSecretKey = () => randomBytes(32);

/** Keys in the file, one hex line each, the sealing key first. */
export function readKeyFile(file: string): Buffer[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => Buffer.from(line, 'hex'))
    .filter((key) => key.length === 32);
}

export function writeKeyFile(file: string, keys: readonly Buffer[]): void {
  writeFileSync(file, `${keys.map((key) => key.toString('hex')).join('\n')}\n`, { mode: 0o600 });
}

export function loadSecretKeys(config: Pick<Config, 'secretKeys' | 'databaseUrl'>): Buffer[] {
  if (config.secretKeys.length > 0) return [...config.secretKeys];
  const file = secretKeyFile(config.databaseUrl);
  if (!file) return [newSecretKey()];
  if (!existsSync(file)) {
    try {
      // `wx`: two processes starting at once keep the one key written first.
      writeFileSync(file, `${newSecretKey().toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const keys = readKeyFile(file);
  if (keys.length === 0) throw new Error(`${file} holds no key (64 hex characters per line)`);
  return keys;
}

export function loadSecretBox(config: Pick<Config, 'secretKeys' | 'databaseUrl'>): SecretBox {
  return new SecretBox(loadSecretKeys(config));
}
