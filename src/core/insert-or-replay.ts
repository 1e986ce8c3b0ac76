import { AppError } from './errors.ts';

/**
 * Insert-or-replay, the rule of every create that carries a business key (a transaction's `key`,
 * later a redemption's `transaction_key`, a subscriber's e-mail): the same request again answers
 * what was stored, another request with the same key is refused, and two requests racing for one
 * key never both write. The caller supplies the I/O:
 * - `find` reads the row stored under the key, if any;
 * - `insert` writes the new record in one statement that yields nothing when the key is taken
 *   (`INSERT … ON CONFLICT DO NOTHING RETURNING`), so a race's loser learns it without an error
 *   that would abort its transaction on PostgreSQL;
 * - `sameRequest` compares the stored row with this request (a digest of the request);
 * - `taken` is the error for another request under the same key (a 422 on the key's field).
 *
 * `insertFirst` skips the look-up before the insert, for an insert that learns of a taken key at
 * no extra cost and writes nothing then: a replay costs one look-up more, a new record one less.
 */
export interface KeyedCreate<Stored, Created> {
  find(): Promise<Stored | undefined>;
  insert(): Promise<Created | undefined>;
  sameRequest(stored: Stored): boolean;
  taken(): Error;
  insertFirst?: boolean;
}

export type KeyedOutcome<Stored, Created> = { created: Created } | { replayed: Stored };

export async function insertOrReplay<Stored, Created>(
  create: KeyedCreate<Stored, Created>,
): Promise<KeyedOutcome<Stored, Created>> {
  const replay = (stored: Stored) => {
    if (!create.sameRequest(stored)) throw create.taken();
    return { replayed: stored };
  };
  // The usual replay (a client retrying) is answered before any work for a new record is done.
  if (!create.insertFirst) {
    const known = await create.find();
    if (known !== undefined) return replay(known);
  }
  const created = await create.insert();
  if (created !== undefined) return { created };
  // Another request stored this key between the look-up and the insert, and committed first.
  const winner = await create.find();
  if (winner === undefined) throw new AppError('unavailable', 'The record could not be stored; try again.');
  return replay(winner);
}
