import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { type FieldProblem, problem } from './errors.ts';

/**
 * Passwords of partners and of the owner console's users: the spec's strength rule, and scrypt
 * hashes (never returned). By default with OWASP's current parameters, N=2^17, r=8, p=1 (128 MiB
 * and about 0.7 s of one core per hash here; at most four run at once, the size of libuv's thread
 * pool); PASSWORD_HASH_COST sets N's exponent. Each hash records its parameters, so a hash made
 * with others (N=2^14 before issue 9, or another cost) still verifies and is replaced at its next
 * success.
 */

export interface ScryptParameters {
  N: number;
  r: number;
  p: number;
}

/** N = 2^17: OWASP's recommendation for scrypt. */
export const RECOMMENDED_HASH_COST = 17;
export const MIN_HASH_COST = 10;
export const MAX_HASH_COST = 20;
const KEY_LENGTH = 32;

/** The parameters new hashes are made with, for a cost (N's exponent). */
export function scryptParameters(cost: number): ScryptParameters {
  return { N: 2 ** cost, r: 8, p: 1 };
}

function derive(password: string, salt: Buffer, { N, r, p }: ScryptParameters): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // scrypt needs 128·N·r bytes; Node refuses more than 32 MiB unless told.
    scrypt(password, salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string, parameters: ScryptParameters): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, parameters);
  const { N, r, p } = parameters;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

function parse(stored: string): { parameters: ScryptParameters; salt: Buffer; key: Buffer } | undefined {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  const parameters = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !salt || !key) return undefined;
  // Only shapes Vouch writes: a stored row cannot make a verification allocate gigabytes.
  const { N } = parameters;
  if (!Number.isInteger(Math.log2(N)) || N < 2 ** 10 || N > 2 ** 20) return undefined;
  if (!(parameters.r >= 1 && parameters.r <= 32 && parameters.p >= 1 && parameters.p <= 16)) return undefined;
  return { parameters, salt: Buffer.from(salt, 'base64url'), key: Buffer.from(key, 'base64url') };
}

/**
 * Checks a password against its stored hash. `rehashed` is a new hash with the `current`
 * parameters when the password matched a hash made with others: the caller stores it. Without a
 * stored hash (no such account, or one without a password) it still spends a hash, so the
 * answer's timing does not tell which accounts exist.
 */
export async function verifyPassword(
  password: string,
  stored: string | null | undefined,
  current: ScryptParameters,
): Promise<{ valid: boolean; rehashed?: string }> {
  if (!stored) {
    await hashPassword(password, current);
    return { valid: false };
  }
  const parsed = parse(stored);
  if (!parsed) return { valid: false };
  const actual = await derive(password, parsed.salt, parsed.parameters);
  const valid = actual.length === parsed.key.length && timingSafeEqual(actual, parsed.key);
  if (!valid) return { valid };
  const { N, r, p } = parsed.parameters;
  const upToDate = N === current.N && r === current.r && p === current.p;
  return upToDate ? { valid } : { valid, rehashed: await hashPassword(password, current) };
}

/** At least 8 characters with a lowercase letter, an uppercase letter and a digit (Laravel's wording). */
export function passwordProblems(field: string, password: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (password.length < 8) problems.push(problem(field, 'minLength', 8));
  if (!/[a-z]/.test(password) || !/[A-Z]/.test(password)) problems.push(problem(field, 'mixedCase'));
  if (!/\d/.test(password)) problems.push(problem(field, 'digit'));
  return problems;
}
