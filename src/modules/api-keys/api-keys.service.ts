import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuthenticatedProgram, Deps } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { randomAlphanumeric } from '../../core/ids.ts';
import { deleteOldest } from '../../core/oldest.ts';
import { nowTimestamp } from '../../core/time.ts';
import * as repository from './api-keys.repository.ts';

export type ApiKeyScope = 'full' | 'read';

/**
 * Tokens look like `vk_<12 public>_<32 secret>`: the public half finds the row, the secret half
 * (32 base-62 characters ≈ 190 bits) is stored only as its SHA-256 digest. A fast digest is
 * enough for secrets this long; a slow hash would only slow every request.
 */
const TOKEN_PATTERN = /^vk_([A-Za-z0-9]{12})_([A-Za-z0-9]{32})$/;

const digest = (secret: string) => createHash('sha256').update(secret).digest();

export async function createApiKey(
  deps: Deps,
  programId: number,
  input: { name: string; scope?: ApiKeyScope },
) {
  const publicId = randomAlphanumeric(12);
  const secret = randomAlphanumeric(32);
  const row = await repository.insertApiKey(deps.database.db, {
    public_id: publicId,
    program_id: programId,
    name: input.name,
    scope: input.scope ?? 'full',
    secret_digest: digest(secret).toString('hex'),
    created_at: nowTimestamp(deps.clock),
  });
  return {
    id: row.public_id,
    name: row.name,
    scope: row.scope,
    token: `vk_${publicId}_${secret}`,
    created_at: row.created_at,
  };
}

export async function listApiKeys(deps: Deps, programId: number) {
  const rows = await repository.listApiKeys(deps.database.db, programId);
  return rows.map((row) => ({
    id: row.public_id,
    name: row.name,
    scope: row.scope,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  }));
}

export async function revokeApiKey(deps: Deps, keyId: string): Promise<void> {
  const revoked = await repository.revokeApiKey(deps.database.db, keyId, nowTimestamp(deps.clock));
  if (!revoked) throw new AppError('not_found', 'API key not found.');
}

/** A least-recently-used map of bounded size (a Map keeps insertion order; a hit moves to the end). */
class LruMap<V> {
  readonly #entries = new Map<string, V>();
  constructor(readonly capacity: number) {}
  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.capacity) deleteOldest(this.#entries);
  }
  get size(): number {
    return this.#entries.size;
  }
}

/**
 * Resolves a bearer token. Answers are cached for at most one second per process (contract §2:
 * a revoked key stops working within a second on every instance), which keeps the database off
 * the hot path of every request. Valid keys and misses are cached apart, each a bounded LRU, so
 * a stream of wrong tokens can only evict other wrong tokens, never a valid key (issue 9).
 */
export class ApiKeyResolver {
  readonly #valid: LruMap<{ program: AuthenticatedProgram; expires: number }>;
  readonly #misses: LruMap<number>;
  readonly #ttlMs: number;

  constructor(
    private readonly deps: Deps,
    options: { ttlMs?: number; validCapacity?: number; missCapacity?: number } = {},
  ) {
    this.#ttlMs = options.ttlMs ?? 1000;
    this.#valid = new LruMap(options.validCapacity ?? 10_000);
    this.#misses = new LruMap(options.missCapacity ?? 1000);
  }

  /** How many answers each cache holds (tests). */
  get cached(): { valid: number; misses: number } {
    return { valid: this.#valid.size, misses: this.#misses.size };
  }

  async resolve(token: string): Promise<AuthenticatedProgram | null> {
    const now = this.deps.clock.nowMicros() / 1000;
    const hit = this.#valid.get(token);
    if (hit && hit.expires > now) return hit.program;
    const missExpires = this.#misses.get(token);
    if (missExpires !== undefined && missExpires > now) return null;
    const program = await this.#lookup(token);
    if (program) this.#valid.set(token, { program, expires: now + this.#ttlMs });
    else this.#misses.set(token, now + this.#ttlMs);
    return program;
  }

  async #lookup(token: string): Promise<AuthenticatedProgram | null> {
    const [, publicId, secret] = TOKEN_PATTERN.exec(token) ?? [];
    if (publicId === undefined || secret === undefined) return null;
    const row = await repository.findActiveKeyByPublicId(this.deps.database.db, publicId);
    if (!row) return null;
    const expected = Buffer.from(row.secret_digest, 'hex');
    const actual = digest(secret);
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
    return {
      id: row.program_id,
      publicId: row.program_public_id,
      type: row.program_type,
      keyId: row.id,
      keyPublicId: publicId,
      scope: row.scope,
    };
  }
}
