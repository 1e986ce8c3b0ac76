import { parentPort, workerData } from 'node:worker_threads';
import {
  CsvChunk,
  keyParams,
  namesOfExport,
  type PagePlan,
  pageStatement,
  type RowKey,
  writePage,
} from './export-csv-page.ts';
import type { FromReader, ReaderStart, ToReader } from './export-threads.ts';
import type { NamesById } from './names-by-id.ts';
import { SqliteDatabase } from './sqlite-driver.ts';
import { withStatementCache } from './sqlite-statements.ts';
import { bindTemplate } from './statement-template.ts';

/**
 * A page reader of SQLite exports (db/export-threads.ts): its own connection to the database
 * file, which reads pages while the server's thread and the other reader do other work. Each
 * page: first where it ends (an index-only walk, answered at once so the next page can start),
 * then its rows as CSV bytes, handed over without a copy.
 */

const port = parentPort;
if (!port) throw new Error('export-thread.worker.ts runs as a worker thread');
const start = workerData as ReaderStart;

const raw = new SqliteDatabase(start.file, { readonly: true, fileMustExist: true });
raw.pragma('busy_timeout = 5000');
// Each page is read once, in order: a large cache would only hold pages already sent.
raw.pragma(`cache_size = -${start.cacheKib}`);
const statements = withStatementCache(raw, () => true);
const run = (sql: string, parameters: readonly unknown[]) =>
  statements.prepare(sql).all(parameters) as unknown[][];

const exports = new Map<number, { plan: PagePlan; names: NamesById[] }>();
const chunk = new CsvChunk();
const send = (message: FromReader, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

/** Pages' memory the server's thread handed back (db/export-threads.ts), to write later pages into. */
const spare: ArrayBuffer[] = [];
const SPARE_MOST = 8;
const PAGE_BUFFER = 1 << 18;

function bufferOf(size: number): Buffer {
  let buffer = spare.pop();
  while (buffer && buffer.byteLength < size) buffer = spare.pop();
  return Buffer.from(buffer ?? new ArrayBuffer(Math.max(size, PAGE_BUFFER)));
}

const keyOf = (row: readonly unknown[] | undefined): RowKey | null =>
  row ? [String(row[1]), Number(row[0])] : null;

async function readPage(exportId: number, seq: number, lo: RowKey | null) {
  const job = exports.get(exportId);
  if (!job) return;
  const { plan } = job;
  const span = lo ? plan.span.after : plan.span.first;
  const [end] = run(
    span.sql,
    bindTemplate(span, {
      ...plan.bound,
      ...keyParams('lo', lo ?? undefined),
      skip: plan.pageSize - 1,
    }),
  );
  const hi: RowKey | null = end ? [String(end[0]), Number(end[1])] : null;
  send({ kind: 'span', exportId, seq, hi });
  const { template, params } = pageStatement(plan, lo ?? undefined, hi ?? undefined);
  const rows = run(template.sql, bindTemplate(template, params));
  const written = await writePage(rows, plan, job.names, chunk);
  const bytes = chunk.takeInto(bufferOf(chunk.size));
  const last = hi === null ? { more: rows.length === plan.pageSize, last: keyOf(rows.at(-1)) } : undefined;
  // Handed over, not copied: the server's thread hands it back once sent (a `spare`).
  const buffer = bytes.buffer as ArrayBuffer;
  const page: FromReader = { kind: 'page', exportId, seq, buffer, length: bytes.length, rows: written };
  send(last ? { ...page, end: last } : page, [buffer]);
}

function handle(message: ToReader): Promise<void> | undefined {
  switch (message.kind) {
    case 'open':
      exports.set(message.exportId, {
        plan: message.plan,
        names: namesOfExport(message.plan, run, (ids) => JSON.stringify(ids)),
      });
      return;
    case 'close':
      exports.delete(message.exportId);
      return;
    case 'spare':
      if (spare.length < SPARE_MOST) spare.push(message.buffer);
      return;
    case 'page':
      return readPage(message.exportId, message.seq, message.lo).catch((error: unknown) =>
        send({
          kind: 'failed',
          exportId: message.exportId,
          seq: message.seq,
          message: error instanceof Error ? error.message : String(error),
        }),
      );
  }
}

// One message at a time, in order: a page's names look-up awaits, and the next page must wait.
let queue: Promise<void> = Promise.resolve();
port.on('message', (message: ToReader) => {
  queue = queue.then(() => handle(message));
});
