import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { messages } from '../../core/messages.ts';

/** Partner passwords: the spec's strength rule, and scrypt hashes (never returned). */

const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, { N, r: R, p: P }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, , , , salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** At least 8 characters with a lowercase letter, an uppercase letter and a digit (Laravel's wording). */
export function passwordProblems(field: string, password: string): string[] {
  const problems: string[] = [];
  if (password.length < 8) problems.push(messages.minLength(field, 8));
  if (!/[a-z]/.test(password) || !/[A-Z]/.test(password))
    problems.push(
      `The ${field.replaceAll('_', ' ')} field must contain at least one uppercase and one lowercase letter.`,
    );
  if (!/\d/.test(password))
    problems.push(`The ${field.replaceAll('_', ' ')} field must contain at least one number.`);
  return problems;
}
