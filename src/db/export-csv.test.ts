import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { SALE_FIELDS } from '../modules/reports/reports.exports.service.ts';
import { transactionRows } from '../modules/transactions/transactions.reports.service.ts';
import { type Database, openDatabase } from './database.ts';
import type { CsvRows } from './export-csv.ts';
import { EXPORT_PAGE } from './export-pages.ts';

/**
 * A SQLite file's whole-program exports are read by reader threads (db/export-threads.ts, ADR
 * 0145); everything else a page at a time on the server's thread. The same export read both
 * ways gives the same bytes: over several pages, with text that needs quotes or the formula
 * guard, an amount beyond 2^53 micro-units, archived sales left out, and two exports at once.
 * SQLite only: a file is what reader threads open (PostgreSQL reads on its own thread, tested by
 * the exports' HTTP tests on both databases).
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const SALES = 2 * EXPORT_PAGE + 345;
let dir: string;
let database: Database;
let programId: number;

/** The columns the sales export writes, as it writes them. */
const fields = SALE_FIELDS;

async function text(rows: CsvRows, stopAfter = Number.POSITIVE_INFINITY): Promise<string> {
  const pages: Buffer[] = [];
  for await (const page of rows.pages()) {
    pages.push(Buffer.from(page.bytes));
    page.release?.();
    if (pages.length >= stopAfter) break;
  }
  return Buffer.concat(pages).toString('utf8');
}

/** The export read on this thread: the same database without its file, as in memory. */
const here = (db: Database): Database => ({ ...db, file: undefined });

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vouch-export-csv-'));
  const url = `sqlite:${join(dir, 'vouch.db')}`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['bin/vouch.js', 'seed', '--partners', '40', '--customers', '300', '--transactions', String(SALES)],
    { cwd: root, env: { ...process.env, DATABASE_URL: url } },
  );
  programId = (JSON.parse(stdout) as { program: { id: number } }).program.id;
  database = await openDatabase(url);
  const { db } = database;
  const sales = await db.selectFrom('transactions').select('id').orderBy('id').execute();
  const idAt = (i: number) => sales[i]?.id ?? 0;
  // Text that needs care, an amount beyond 2^53 micro-units, a refund, archived sales, and rows
  // of one microsecond on both sides of the first page's end.
  const tricky: [number, Record<string, unknown>][] = [
    [3, { product_id: '=HYPERLINK("x")', amount: 999_999_999_999_999_999n, refunded_amount: 1n }],
    [7, { product_id: 'café, "du" coin\nsecond line', customer_key: '+33 1 23' }],
    [11, { archived_at: '2026-11-01T00:00:00.000000Z' }],
    [EXPORT_PAGE + 5, { archived_at: '2026-11-01T00:00:00.000000Z' }],
  ];
  for (const [at, values] of tricky)
    await db.updateTable('transactions').set(values).where('id', '=', idAt(at)).execute();
  const boundary = await db
    .selectFrom('transactions')
    .select('created_at')
    .where('program_id', '=', programId)
    .orderBy('created_at')
    .orderBy('id')
    .offset(EXPORT_PAGE - 1)
    .limit(1)
    .executeTakeFirstOrThrow();
  await db
    .updateTable('transactions')
    .set({ created_at: boundary.created_at })
    .where('id', 'in', [idAt(20), idAt(21), idAt(22)])
    .execute();
});

after(async () => {
  await database?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('read by the reader threads or here, an export is the same file', async () => {
  const threads = await text(transactionRows.open(database, programId, {}, {}, fields));
  const single = await text(transactionRows.open(here(database), programId, {}, {}, fields));
  assert.equal(threads, single);
  const records: string[][] = parse(threads);
  assert.equal(records.length, SALES - 2, 'every sale but the two archived');
  assert.equal(records.length, await transactionRows.open(database, programId, {}, {}, fields).count());
  assert.ok(
    threads.includes(',999999999999.999999,USD,0.000001,"\'=HYPERLINK(""x"")",'),
    'exact and guarded',
  );
  assert.ok(threads.includes(',"café, ""du"" coin\nsecond line",'), 'quoted, non-ASCII kept');
  assert.ok(threads.includes(",'+33 1 23,"), 'a formula-looking key guarded');
  const order = records.map((record) => record[7] ?? '');
  assert.deepEqual(order, [...order].sort(), 'in creation order');
});

test('a range, two exports at once, and an export left part-way', async () => {
  const rows = await database.db
    .selectFrom('transactions')
    .select('created_at')
    .where('program_id', '=', programId)
    .orderBy('created_at')
    .execute();
  const range = { from: rows[500]?.created_at ?? '', until: rows[SALES - 500]?.created_at ?? '' };
  const [a, b, single] = await Promise.all([
    text(transactionRows.open(database, programId, {}, range, fields)),
    text(transactionRows.open(database, programId, {}, range, fields)),
    text(transactionRows.open(here(database), programId, {}, range, fields)),
  ]);
  assert.equal(a, single);
  assert.equal(b, single);
  assert.ok(parse(single).length > EXPORT_PAGE, 'over more than one page');
  const firstPage = await text(transactionRows.open(database, programId, {}, {}, fields), 1);
  assert.ok(firstPage.length > 0);
  const again = await text(transactionRows.open(database, programId, {}, range, fields));
  assert.equal(again, single, 'the readers go on after an export left part-way');
});
