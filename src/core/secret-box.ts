import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * Secrets kept at rest (webhook signing secrets) are sealed with AES-256-GCM under the server key
 * (`SECRET_KEY`): `enc:v1:<key id>:<iv>:<ciphertext+tag>`, base64url parts. The key id names which
 * of the configured keys sealed a value, so a key can be rotated: the first key seals, every key
 * opens. A value without the prefix is a secret stored before encryption and is read as is until
 * it is sealed (at start-up, and by `vouch secrets rotate`).
 */
const PREFIX = 'enc:v1:';

export const keyId = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

export class SecretBox {
  readonly #keys: Map<string, Buffer>;
  readonly #current: { id: string; key: Buffer };

  constructor(keys: readonly Buffer[]) {
    const [current] = keys;
    if (!current) throw new Error('a secret box needs a key');
    for (const key of keys) if (key.length !== 32) throw new Error('secret keys are 32 bytes');
    this.#keys = new Map(keys.map((key) => [keyId(key), key]));
    this.#current = { id: keyId(current), key: current };
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${this.#current.id}:${iv.toString('base64url')}:${body.toString('base64url')}`;
  }

  open(stored: string): string {
    if (!stored.startsWith(PREFIX)) return stored;
    const [id, iv, body] = stored.slice(PREFIX.length).split(':');
    const key = id ? this.#keys.get(id) : undefined;
    if (!key || !iv || !body) {
      throw new Error(`a secret was sealed with key ${id}, which SECRET_KEY does not hold`);
    }
    const data = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(data.subarray(data.length - 16));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString(
      'utf8',
    );
  }

  /** Whether a stored value is sealed with the current key (otherwise it is to be sealed again). */
  isCurrent(stored: string): boolean {
    return stored.startsWith(`${PREFIX}${this.#current.id}:`);
  }

  /**
   * Names of `value` for `purpose` that only the server can compute (HMAC-SHA256, base64url), one
   * per key, the sealing key's first: a value named before a key rotation is still recognised,
   * and a new one is named under the new key.
   */
  names(purpose: string, value: string): string[] {
    return [this.#current.key, ...[...this.#keys.values()].filter((key) => key !== this.#current.key)].map(
      (key) => createHmac('sha256', key).update(`${purpose}\u0000`).update(value).digest('base64url'),
    );
  }
}
