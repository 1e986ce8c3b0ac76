import type { Insertable } from 'kysely';
import type { Deps, ProgramContext } from '../../context.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { nowTimestamp } from '../../core/time.ts';
import { listApiKeys } from '../api-keys/api-keys.service.ts';
import * as repository from './activity.repository.ts';
import type { ActivityLogTable } from './activity.tables.ts';

/**
 * The activity log: who changed what in a program, and when. Console writes are stored at once,
 * with the fields they changed; API-key writes are noted by the app after each successful `/v1`
 * write and stored in batches (ADR 0131), so a sale pays no extra commit for them.
 */

export type Changes = Record<string, { before: unknown; after: unknown }>;

export interface ActivityEntry {
  actor: { kind: 'user' | 'key'; name: string };
  action: string;
  subject?: string | undefined;
  changes?: Changes | undefined;
  address?: string | undefined;
}

const rowOf = (programId: number, entry: ActivityEntry, at: string): Insertable<ActivityLogTable> => ({
  program_id: programId,
  actor_kind: entry.actor.kind,
  actor: entry.actor.name,
  action: entry.action,
  subject: entry.subject ?? null,
  changes: entry.changes && Object.keys(entry.changes).length > 0 ? JSON.stringify(entry.changes) : null,
  address: entry.address ?? null,
  created_at: at,
});

/** Stores entries of one program now (the console's writes, once they succeeded). */
export async function recordActivity(ctx: ProgramContext, entries: readonly ActivityEntry[]) {
  const at = nowTimestamp(ctx.clock);
  await repository.insertEntries(
    ctx.database.db,
    entries.map((entry) => rowOf(ctx.program.id, entry, at)),
  );
}

/** The fields whose values differ between two readings of a record, as before → after. */
export function changesBetween(before: Record<string, unknown>, after: Record<string, unknown>): Changes {
  const changes: Changes = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)]))
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field]))
      changes[field] = { before: before[field] ?? null, after: after[field] ?? null };
  return changes;
}

const FLUSH_MS = 500;
const MAX_PENDING = 500;

/**
 * The API's writes noted in memory and stored in batches every half second (or every 500), each
 * batch one insert; `flush` stores what is pending now (a read of the log does it first, so an
 * instance reads its own writes). What is pending when the process dies is lost.
 */
export class ApiWriteLog {
  #pending: Insertable<ActivityLogTable>[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(private readonly deps: Deps) {}

  add(programId: number, entry: ActivityEntry): void {
    this.#pending.push(rowOf(programId, entry, nowTimestamp(this.deps.clock)));
    if (this.#pending.length >= MAX_PENDING) void this.flush();
    else if (!this.#timer && !this.#closed) {
      this.#timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.#timer.unref();
    }
  }

  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending;
    this.#pending = [];
    this.#flushing = this.#flushing.then(async () => {
      if (batch.length === 0) return;
      try {
        await repository.insertEntries(this.deps.database.db, batch);
      } catch (error) {
        this.deps.log.error({ err: error, entries: batch.length }, 'activity entries were not stored');
      }
    });
    return this.#flushing;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }
}

/** One page of the program's activity, newest first, each API key named as it is now. */
export async function listActivity(ctx: ProgramContext, page: PageRequest) {
  const rows = await repository.listEntries(ctx.database.db, ctx.program.id, pageWindow(page));
  const keyNames = rows.some((row) => row.actor_kind === 'key')
    ? new Map((await listApiKeys(ctx, ctx.program.id)).map((key) => [key.id, key.name]))
    : new Map<string, string>();
  return rows.map((row) => ({
    id: Number(row.id),
    actor: {
      kind: row.actor_kind,
      name: row.actor_kind === 'key' ? (keyNames.get(row.actor) ?? row.actor) : row.actor,
      ...(row.actor_kind === 'key' ? { key: row.actor } : {}),
    },
    action: row.action,
    subject: row.subject,
    changes: row.changes === null ? null : (JSON.parse(row.changes) as Changes),
    address: row.address,
    created_at: row.created_at,
  }));
}
