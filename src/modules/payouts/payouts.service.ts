import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { AppError, fieldError } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import { messages } from '../../core/messages.ts';
import { microsFrom, microsToNumber } from '../../core/money.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { approvedBy, batchPayout, exportAmount, payoutMinimumOf } from '../../core/payouts.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { queueEmail, recordEvent } from '../../outbox/outbox.ts';
import {
  assignCommissionsToPayout,
  commissionSettings,
  payCommissionsOfPayout,
  releaseCommissionsOfPayout,
  settleDueCommissions,
  takePayableCommissions,
} from '../commissions/commissions.service.ts';
import {
  findPartnerByRef,
  findPartnersByIds,
  getPartnerByPathOrThrow,
  type PartnerRow,
} from '../partners/partners.service.ts';
import { getProgramNameAndWebsite } from '../program/program.service.ts';
import type { PayoutItemRow, PayoutRow } from './payouts.repository.ts';
import * as repository from './payouts.repository.ts';
import type { CreatePayoutBody, ListPayoutsQuery } from './payouts.schemas.ts';

/**
 * Payout batches of affiliate programs: gather approved commissions (net of clawbacks) per
 * partner into a batch, mark it paid or cancel it, export it as a payment file. Which partners
 * a batch pays is decided by core/payouts.ts; what happens to the commissions, by the
 * commissions service.
 */

export function payoutNotFound(): AppError {
  return new AppError('not_found', 'Payout not found.');
}

async function partnersByIds(db: Kysely<DB>, programId: number, ids: readonly number[]) {
  const out = new Map<number, PartnerRow>();
  for (let i = 0; i < ids.length; i += 1000)
    for (const row of await findPartnersByIds(db, programId, ids.slice(i, i + 1000)))
      out.set(Number(row.id), row);
  return out;
}

function toPayoutEntry(row: PayoutRow) {
  return {
    id: row.public_id,
    status: row.status as 'pending' | 'paid' | 'cancelled',
    currency: row.currency,
    total: microsToNumber(microsFrom(row.total)),
    partner_count: Number(row.partner_count),
    created_at: row.created_at,
    paid_at: row.paid_at,
    cancelled_at: row.cancelled_at,
  };
}

async function toPayout(db: Kysely<DB>, programId: number, row: PayoutRow) {
  const items = await repository.listPayoutItems(db, programId, Number(row.id));
  const partners = await partnersByIds(
    db,
    programId,
    items.map((item) => Number(item.partner_id)),
  );
  return {
    ...toPayoutEntry(row),
    items: items.map((item) => ({
      partner: partners.get(Number(item.partner_id))?.public_id ?? '',
      amount: microsToNumber(microsFrom(item.amount)),
      commission_count: Number(item.commission_count),
      payout_method: item.payout_method as 'paypal' | 'wise' | 'bank_transfer' | 'manual' | null,
    })),
  };
}

/**
 * `POST /v1/payouts`: every partner whose approved, unpaid commissions (net of clawbacks) of the
 * currency reach the program's minimum gets an item. One payout is made at a time per program
 * (an advisory lock on PostgreSQL, the write lock on SQLite) and the commissions taken are
 * locked, so two calls never put one commission in two payouts.
 */
export async function createPayout(ctx: ProgramContext, body: CreatePayoutBody) {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  await settleDueCommissions(ctx);
  const settings = await commissionSettings(db, programId);
  const currency = (body.currency ?? settings.currency).toUpperCase();
  let partnerId: number | undefined;
  if (body.partner !== undefined) {
    const partner =
      typeof body.partner === 'string'
        ? await getPartnerByPathOrThrow(db, programId, body.partner).catch(() => undefined)
        : await findPartnerByRef(db, programId, body.partner);
    if (!partner) throw fieldError('partner', messages.invalid('partner'));
    partnerId = Number(partner.id);
  }
  return db.transaction().execute(async (trx) => {
    if (ctx.database.dialect === 'postgres') await repository.lockProgramPayouts(trx, programId);
    const now = nowTimestamp(ctx.clock);
    const payable = await takePayableCommissions(trx, ctx, {
      currency,
      ...(partnerId !== undefined ? { partnerId } : {}),
      approvedBy: approvedBy(now, settings.payoutTermsDays),
    });
    const lines = batchPayout(payable, payoutMinimumOf(settings.payoutMinimum, currency));
    if (lines.length === 0)
      throw fieldError(
        'currency',
        `No partner has approved commissions in ${currency} that reach the payout minimum.`,
      );
    const total = lines.reduce((sum, line) => sum + line.amountMicros, 0n);
    const payout = await repository.insertPayout(trx, {
      program_id: programId,
      public_id: newKey(),
      status: 'pending',
      currency,
      total,
      partner_count: lines.length,
      created_at: now,
      paid_at: null,
      cancelled_at: null,
    });
    const partners = await partnersByIds(
      trx,
      programId,
      lines.map((line) => line.partnerId),
    );
    await repository.insertPayoutItems(
      trx,
      lines.map((line) => {
        const partner = partners.get(line.partnerId);
        return {
          program_id: programId,
          payout_id: Number(payout.id),
          partner_id: line.partnerId,
          amount: line.amountMicros,
          commission_count: line.commissionIds.length,
          payout_method: partner?.payout_method ?? null,
          payout_details: partner?.payout_details ?? '{}',
        };
      }),
    );
    await assignCommissionsToPayout(
      trx,
      ctx,
      lines.flatMap((line) => line.commissionIds),
      Number(payout.id),
    );
    const data = await toPayout(trx, programId, payout);
    await recordEvent(trx, programId, 'payout.created', data, now);
    return data;
  });
}

async function getRowOrThrow(db: Kysely<DB>, programId: number, id: string, lock = false) {
  const row = await repository.findPayoutByPublicId(db, programId, id, lock);
  if (!row) throw payoutNotFound();
  return row;
}

export async function getPayout(ctx: ProgramContext, id: string) {
  const db = ctx.database.db;
  return toPayout(db, ctx.program.id, await getRowOrThrow(db, ctx.program.id, id));
}

export async function listPayouts(ctx: ProgramContext, query: ListPayoutsQuery & PageRequest) {
  const filter = query.status !== undefined ? { status: query.status } : {};
  const rows = await repository.listPayouts(
    ctx.database.db,
    ctx.program.id,
    filter,
    pageWindow(query),
    query.sort,
  );
  return rows.map(toPayoutEntry);
}

function refuseUnlessPending(row: PayoutRow, what: string) {
  if (row.status !== 'pending')
    throw fieldError('status', `The payout is ${row.status} and cannot be ${what}.`);
}

/**
 * `POST /v1/payouts/{id}/mark-paid`: the commissions become paid, partner figures follow, and
 * each partner paid gets an e-mail. Marking a paid payout paid again changes nothing.
 */
export async function markPayoutPaid(ctx: ProgramContext, id: string) {
  const programId = ctx.program.id;
  return ctx.database.db.transaction().execute(async (trx) => {
    const row = await getRowOrThrow(trx, programId, id, ctx.database.dialect === 'postgres');
    if (row.status === 'paid') return toPayout(trx, programId, row);
    refuseUnlessPending(row, 'marked paid');
    const now = nowTimestamp(ctx.clock);
    await repository.updatePayout(trx, programId, Number(row.id), { status: 'paid', paid_at: now });
    await payCommissionsOfPayout(trx, ctx, Number(row.id));
    const data = await toPayout(trx, programId, { ...row, status: 'paid', paid_at: now });
    await recordEvent(trx, programId, 'payout.paid', data, now);
    await emailPartnersPaid(trx, ctx, row, now);
    return data;
  });
}

/** The e-mail each partner of a paid payout gets (through the outbox). */
async function emailPartnersPaid(trx: Kysely<DB>, ctx: ProgramContext, row: PayoutRow, now: string) {
  const programId = ctx.program.id;
  const program = await getProgramNameAndWebsite(trx, programId);
  const name = program?.name ?? 'the partner program';
  const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  let after = 0;
  for (;;) {
    const items = await repository.listPayoutItems(trx, programId, Number(row.id), { after, limit: 1000 });
    if (items.length === 0) break;
    after = Number(items[items.length - 1]!.id);
    const partners = await partnersByIds(
      trx,
      programId,
      items.map((item) => Number(item.partner_id)),
    );
    for (const item of items) {
      const partner = partners.get(Number(item.partner_id));
      if (!partner) continue;
      const amount = `${exportAmount(microsFrom(item.amount), row.currency)} ${row.currency}`;
      const greeting = `Hello ${partner.name ?? partner.email},`;
      await queueEmail(
        trx,
        programId,
        {
          to: partner.email,
          subject: `${name}: your payout of ${amount} has been sent`,
          text: `${greeting}\n\n${name} has sent your payout of ${amount} (${item.commission_count} commissions).\n`,
          html: `<p>${html(greeting)}</p><p>${html(name)} has sent your payout of ${html(amount)} (${item.commission_count} commissions).</p>`,
        },
        now,
      );
    }
  }
}

/** `POST /v1/payouts/{id}/cancel`: its commissions go back to approved, for a later payout. */
export async function cancelPayout(ctx: ProgramContext, id: string) {
  const programId = ctx.program.id;
  return ctx.database.db.transaction().execute(async (trx) => {
    const row = await getRowOrThrow(trx, programId, id, ctx.database.dialect === 'postgres');
    if (row.status === 'cancelled') return toPayout(trx, programId, row);
    refuseUnlessPending(row, 'cancelled');
    const now = nowTimestamp(ctx.clock);
    await repository.updatePayout(trx, programId, Number(row.id), { status: 'cancelled', cancelled_at: now });
    await releaseCommissionsOfPayout(trx, ctx, Number(row.id));
    return toPayout(trx, programId, { ...row, status: 'cancelled', cancelled_at: now });
  });
}

// ---------------------------------------------------------------------------------------------
// Exports: payment files, streamed a page of items at a time.

export type ExportFormat = 'paypal' | 'wise' | 'csv';

interface Details {
  email?: string;
  iban?: string;
  account_holder?: string;
  account_number?: string;
  routing_number?: string;
  swift_bic?: string;
  bank_name?: string;
  note?: string;
}

function detailsOf(item: PayoutItemRow): Details {
  try {
    const parsed: unknown = JSON.parse(item.payout_details || '{}');
    return typeof parsed === 'object' && parsed !== null ? (parsed as Details) : {};
  } catch {
    return {};
  }
}

/**
 * The columns of each format. PayPal Payouts takes rows without a header: recipient (e-mail),
 * amount, currency, a reference (at most 30 characters; the payout and partner ids), a note.
 * Wise batch transfers take a header row naming its columns.
 */
const formats: Record<
  ExportFormat,
  {
    header: string[] | null;
    row: (
      item: PayoutItemRow,
      partner: PartnerRow | undefined,
      payout: PayoutRow,
      amount: string,
    ) => string[];
  }
> = {
  paypal: {
    header: null,
    row: (item, partner, payout, amount) => {
      const details = detailsOf(item);
      return [
        details.email ?? partner?.email ?? '',
        amount,
        payout.currency,
        `${payout.public_id}-${partner?.public_id ?? item.partner_id}`.slice(0, 30),
        `Commissions (${item.commission_count})`,
      ];
    },
  },
  wise: {
    header: [
      'name',
      'recipientEmail',
      'paymentReference',
      'receiverType',
      'amountCurrency',
      'amount',
      'sourceCurrency',
      'targetCurrency',
      'IBAN',
      'accountNumber',
      'sortCode',
      'BIC',
    ],
    row: (item, partner, payout, amount) => {
      const details = detailsOf(item);
      const name =
        details.account_holder ??
        ([partner?.name, partner?.surname].filter(Boolean).join(' ') || partner?.email || '');
      return [
        name,
        details.email ?? partner?.email ?? '',
        `Payout ${payout.public_id}`.slice(0, 35),
        'PRIVATE',
        'target',
        amount,
        payout.currency,
        payout.currency,
        details.iban ?? '',
        details.account_number ?? '',
        details.routing_number ?? '',
        details.swift_bic ?? '',
      ];
    },
  },
  csv: {
    header: [
      'payout_id',
      'partner_id',
      'email',
      'name',
      'payout_method',
      'amount',
      'currency',
      'commission_count',
      'payout_email',
      'iban',
      'account_holder',
      'account_number',
      'routing_number',
      'swift_bic',
      'bank_name',
      'note',
    ],
    row: (item, partner, payout, amount) => {
      const details = detailsOf(item);
      return [
        payout.public_id,
        partner?.public_id ?? '',
        partner?.email ?? '',
        [partner?.name, partner?.surname].filter(Boolean).join(' '),
        item.payout_method ?? '',
        amount,
        payout.currency,
        String(item.commission_count),
        details.email ?? '',
        details.iban ?? '',
        details.account_holder ?? '',
        details.account_number ?? '',
        details.routing_number ?? '',
        details.swift_bic ?? '',
        details.bank_name ?? '',
        details.note ?? '',
      ];
    },
  },
};

/**
 * `GET /v1/payouts/{id}/export`: the payout as a payment file, streamed 2,000 items at a time,
 * each page quoted by csv-stringify (fields with commas, quotes or line breaks are quoted).
 * Amounts are rounded to the currency's minor unit here and only here (core/payouts.ts).
 */
export async function exportPayout(ctx: ProgramContext, id: string, format: ExportFormat) {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  const payout = await getRowOrThrow(db, programId, id);
  const spec = formats[format];
  let after = 0;
  let headerSent = spec.header === null;
  const stream = new Readable({
    async read() {
      try {
        const chunks: string[] = [];
        if (!headerSent) {
          chunks.push(stringify([spec.header!]));
          headerSent = true;
        }
        const items = await repository.listPayoutItems(db, programId, Number(payout.id), {
          after,
          limit: 2000,
        });
        if (items.length > 0) {
          after = Number(items[items.length - 1]!.id);
          const partners = await partnersByIds(
            db,
            programId,
            items.map((item) => Number(item.partner_id)),
          );
          chunks.push(
            stringify(
              items.map((item) =>
                spec.row(
                  item,
                  partners.get(Number(item.partner_id)),
                  payout,
                  exportAmount(microsFrom(item.amount), payout.currency),
                ),
              ),
            ),
          );
        }
        if (chunks.length > 0) this.push(chunks.join(''));
        if (items.length === 0) this.push(null);
      } catch (error) {
        this.destroy(error as Error);
      }
    },
  });
  return { filename: `payout-${payout.public_id}-${format}.csv`, stream };
}
