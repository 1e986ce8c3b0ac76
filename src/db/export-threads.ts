import { resolve } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startSmallThreads } from '../threads.ts';
import type { PagePlan, RowKey } from './export-csv-page.ts';

/**
 * A SQLite export read by two threads at once (ADR 0145). One thread reads SQLite's pages and
 * writes their CSV at about 40 MB/s; a whole program's sales need more. Here each reader thread
 * (db/export-thread.worker.ts) has its own read-only connection to the database file, and the
 * pages of one export alternate between them: a reader first finds where its page ends (an
 * index-only walk, answered at once), so the next page starts on the other reader while this
 * one reads its rows. The pages come back in order, at most a few ahead of what the client has
 * taken, so memory stays at a few pages whatever the file's size.
 *
 * The readers are started by the first such export and kept, idle and not holding the process
 * open, until the database closes.
 */

export const READERS = 2;
/** Pages read ahead of the one the client takes next. */
const AHEAD = 2 * READERS;
/** Each reader's SQLite page cache: pages are read once, in order. */
const READER_CACHE_KIB = 2048;
/** A reader's garbage is a page's rows and strings: a small young generation holds it (ADR 0145). */
const READER_SEMI_SPACE_MB = 4;

export interface ReaderStart {
  file: string;
  cacheKib: number;
}

export type ToReader =
  | { kind: 'open'; exportId: number; plan: PagePlan }
  | { kind: 'page'; exportId: number; seq: number; lo: RowKey | null }
  | { kind: 'close'; exportId: number }
  /** A page's memory, sent and flushed: the reader writes a later page into it. */
  | { kind: 'spare'; buffer: ArrayBuffer };

export type FromReader =
  | { kind: 'span'; exportId: number; seq: number; hi: RowKey | null }
  | {
      kind: 'page';
      exportId: number;
      seq: number;
      buffer: ArrayBuffer;
      length: number;
      rows: number;
      /** On a page with no end found (the last, unless rows came meanwhile): whether it was full. */
      end?: { more: boolean; last: RowKey | null };
    }
  | { kind: 'failed'; exportId: number; seq: number; message: string };

export interface CsvPage {
  bytes: Buffer;
  rows: number;
  /**
   * Called once the bytes are written out and flushed, so the reader that wrote them reuses
   * their memory: handed back and forth, pages allocate nothing on the server's thread, whose
   * garbage of page buffers would otherwise grow until a collection (V8 lets external memory
   * grow by 64 MB first).
   */
  release?: () => void;
}

interface Pool {
  readers: Worker[];
  listeners: Map<number, (message: FromReader) => void>;
}

const pools = new Map<string, Pool>();
let lastExportId = 0;

function startPool(file: string): Pool {
  const pool: Pool = { readers: [], listeners: new Map() };
  const fail = (error: Error) => {
    if (pools.get(file) === pool) pools.delete(file);
    for (const listener of pool.listeners.values())
      listener({ kind: 'failed', exportId: 0, seq: -1, message: error.message });
    for (const reader of pool.readers) void reader.terminate();
  };
  const readers = startSmallThreads(
    READERS,
    new URL('./export-thread.worker', import.meta.url),
    import.meta.url.endsWith('.ts'),
    READER_SEMI_SPACE_MB,
    { workerData: { file, cacheKib: READER_CACHE_KIB } satisfies ReaderStart },
  );
  for (const reader of readers) {
    reader.on('message', (message: FromReader) => pool.listeners.get(message.exportId)?.(message));
    reader.on('error', fail);
    reader.on('exit', (code) => fail(new Error(`an export reader stopped (exit code ${code})`)));
    reader.unref();
    pool.readers.push(reader);
  }
  return pool;
}

/** Stops the readers of this database file, if any were started. */
export async function stopExportReaders(file: string): Promise<void> {
  const pool = pools.get(resolve(file));
  if (!pool) return;
  pools.delete(resolve(file));
  await Promise.all(pool.readers.map((reader) => reader.terminate()));
}

/** The pages of one export, read by the readers of `file`, in order. */
export async function* pagesInThreads(file: string, plan: PagePlan): AsyncGenerator<CsvPage> {
  const path = resolve(file);
  let pool = pools.get(path);
  if (!pool) {
    pool = startPool(path);
    pools.set(path, pool);
  }
  const { readers, listeners } = pool;
  const pages = new ExportPages(++lastExportId, readers);
  listeners.set(pages.exportId, (message) => pages.receive(message));
  for (const reader of readers) reader.ref();
  try {
    yield* pages.inOrder(plan);
  } finally {
    listeners.delete(pages.exportId);
    pages.close();
    if (listeners.size === 0) for (const reader of readers) reader.unref();
  }
}

/**
 * One export's pages: asked of the readers in turn, each as soon as where it starts is known
 * (the page before's end) and at most `AHEAD` past the one the client takes next; given back in
 * order as they arrive.
 */
class ExportPages {
  readonly #arrived = new Map<number, CsvPage>();
  #failure: Error | undefined;
  #wake: (() => void) | undefined;
  /** The next page to ask for, and where it starts (undefined: not known yet; null: the start). */
  #next = 0;
  #nextLo: RowKey | null | undefined = null;
  /** The page after the last (known when a page with no end found was not full). */
  #end = Number.POSITIVE_INFINITY;
  #taken = 0;

  constructor(
    readonly exportId: number,
    private readonly readers: readonly Worker[],
  ) {}

  async *inOrder(plan: PagePlan): AsyncGenerator<CsvPage> {
    for (let seq = 0; seq < this.readers.length; seq++)
      this.#post(seq, { kind: 'open', exportId: this.exportId, plan });
    this.#ask();
    while (this.#taken < this.#end) {
      if (this.#failure) throw this.#failure;
      const page = this.#arrived.get(this.#taken);
      if (!page) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        this.#wake = undefined;
        continue;
      }
      this.#arrived.delete(this.#taken);
      this.#taken++;
      this.#ask();
      if (page.bytes.length > 0) yield page;
      else page.release?.();
    }
  }

  receive(message: FromReader): void {
    if (message.kind === 'span') {
      if (message.hi !== null) this.#nextLo = message.hi;
    } else if (message.kind === 'page') {
      const { buffer, seq } = message;
      this.#arrived.set(seq, {
        bytes: Buffer.from(buffer, 0, message.length),
        rows: message.rows,
        release: () =>
          this.#readerOf(seq)?.postMessage({ kind: 'spare', buffer } satisfies ToReader, [buffer]),
      });
      if (message.end?.more) this.#nextLo = message.end.last;
      else if (message.end) this.#end = message.seq + 1;
    } else {
      this.#failure = new Error(`an export page could not be read: ${message.message}`);
    }
    this.#ask();
    this.#wake?.();
  }

  /** Tells every reader the export is over (finished, failed or left by its client). */
  close(): void {
    for (let seq = 0; seq < this.readers.length; seq++)
      this.#post(seq, { kind: 'close', exportId: this.exportId });
  }

  #readerOf = (seq: number) => this.readers[seq % this.readers.length];

  #post(seq: number, message: ToReader): void {
    this.#readerOf(seq)?.postMessage(message);
  }

  #ask(): void {
    while (this.#nextLo !== undefined && this.#next < this.#end && this.#next < this.#taken + AHEAD) {
      this.#post(this.#next, { kind: 'page', exportId: this.exportId, seq: this.#next, lo: this.#nextLo });
      this.#next++;
      this.#nextLo = undefined;
    }
  }
}
