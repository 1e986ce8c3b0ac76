import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { booleanOf } from '../../core/booleans.ts';
import type { CommissionRule, CommissionType } from '../../core/commissions.ts';
import {
  AppError,
  type FieldProblem,
  fieldError,
  notFound,
  problem,
  validationError,
} from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import {
  assignFieldIds,
  checkLeadAnswers,
  type LeadAnswer,
  type LeadFormField,
  type LeadStatus,
  leadFlags,
  refusedLeadMove,
  submissionForm,
} from '../../core/lead-form.ts';
import { amountOrThrow } from '../../core/money.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import { recordEvent } from '../../outbox/outbox.ts';
import { findCustomerByRef } from '../customers/customers.service.ts';
import { findPartnerById, findPartnerByRef } from '../partners/partners.service.ts';
import { readProgram } from '../program/program.service.ts';
import { recordAffiliateSale } from '../transactions/transactions.service.ts';
import type { LeadRow, LeadSetupRow } from './leads.repository.ts';
import * as repository from './leads.repository.ts';
import type {
  ConvertLeadInput,
  CreateLeadBody,
  ListLeadsQuery,
  UpdateLeadSetupBody,
} from './leads.schemas.ts';

/**
 * Leads of affiliate programs (spec "Leads", "Lead setup"): partners submit prospects through the
 * program's form; a conversion records a sale of the lead's new (or existing) customer through the
 * transactions service, so the partner's figures move as for any sale.
 */

type LeadsCommissionType = 'follow_program_settings' | 'lead_specific';

interface LeadsCommission {
  currency: string;
  commission: number;
  commission_type: CommissionType;
}

interface LeadSetup {
  enabled: boolean;
  commissionType: LeadsCommissionType;
  commission: LeadsCommission;
  fields: LeadFormField[];
  nextFieldId: number;
}

const parse = <T>(text: string | null, fallback: T): T => (text ? (JSON.parse(text) as T) : fallback);

/**
 * The setup of a program, defaults filled in: leads on, commission as the program's, no form.
 * The stored commission holds only what a client set, so the rest follows the program's settings.
 */
async function readSetup(db: Kysely<DB>, programId: number): Promise<LeadSetup> {
  const [row, program] = await Promise.all([
    repository.findLeadSetup(db, programId),
    readProgram(db, programId),
  ]);
  return setupOf(row, program?.settings ?? '{}');
}

function setupOf(row: LeadSetupRow | undefined, programSettings: string): LeadSetup {
  const settings = programSettingsOf('affiliate', programSettings) as Record<string, unknown>;
  const rule = (settings.commission ?? {}) as Partial<CommissionRule>;
  const defaults: LeadsCommission = {
    currency: String(settings.currency ?? 'USD').toUpperCase(),
    commission: Number(rule.value ?? 0),
    commission_type: rule.type ?? 'percent',
  };
  return {
    enabled: row ? Boolean(row.leads_enabled) : true,
    commissionType: (row?.commission_type as LeadsCommissionType | undefined) ?? 'follow_program_settings',
    commission: { ...defaults, ...parse<Partial<LeadsCommission>>(row?.leads_commission ?? null, {}) },
    fields: parse<LeadFormField[]>(row?.form_fields ?? null, []),
    nextFieldId: row?.next_field_id ?? 1,
  };
}

function presentSetup(setup: LeadSetup) {
  return {
    leads_enabled: setup.enabled ? ('true' as const) : ('false' as const),
    program_leads_commission_type: setup.commissionType,
    leads_commission: setup.commission,
    leads_custom_form_fields: setup.fields,
  };
}

export async function getLeadSetup(ctx: ProgramContext) {
  return presentSetup(await readSetup(ctx.database.db, ctx.program.id));
}

/** `PUT /v1/leads/details` (a Vouch extension): changes the setup; listed form fields keep their ids. */
export async function updateLeadSetup(ctx: ProgramContext, body: UpdateLeadSetupBody) {
  const programId = ctx.program.id;
  const now = nowTimestamp(ctx.clock);
  return ctx.database.db.transaction().execute(async (trx) => {
    const row = await repository.lockLeadSetup(trx, {
      program_id: programId,
      leads_enabled: true,
      commission_type: 'follow_program_settings',
      leads_commission: '{}',
      form_fields: '[]',
      next_field_id: 1,
      created_at: now,
      updated_at: now,
    });
    const program = await readProgram(trx, programId);
    const current = setupOf(row, program?.settings ?? '{}');
    const storedCommission = { ...parse<Partial<LeadsCommission>>(row.leads_commission, {}) };
    const given = body.leads_commission ?? {};
    if (given.currency !== undefined) storedCommission.currency = given.currency.toUpperCase();
    if (given.commission !== undefined) storedCommission.commission = given.commission;
    if (given.commission_type !== undefined) storedCommission.commission_type = given.commission_type;
    const commission = { ...current.commission, ...storedCommission };
    if (commission.commission_type === 'percent' && commission.commission > 100) {
      const field = 'leads_commission.commission';
      throw fieldError(field, 'max', 100);
    }
    let fields = current.fields;
    let nextFieldId = current.nextFieldId;
    if (body.leads_custom_form_fields !== undefined) {
      const assigned = assignFieldIds(
        current.fields,
        body.leads_custom_form_fields.map((field) => ({
          id: field.id,
          type: field.type,
          title: field.title,
          text: field.text ?? '',
          description: field.description ?? null,
          required: booleanOf(field.required, false),
          options: field.options ?? [],
        })),
        current.nextFieldId,
      );
      if (assigned.errors.length > 0) throw validationError(assigned.errors);
      fields = assigned.fields;
      nextFieldId = assigned.nextId;
    }
    const updated = await repository.updateLeadSetup(trx, programId, {
      leads_enabled: body.leads_enabled === undefined ? current.enabled : booleanOf(body.leads_enabled, true),
      commission_type: body.program_leads_commission_type ?? current.commissionType,
      leads_commission: JSON.stringify(storedCommission),
      form_fields: JSON.stringify(fields),
      next_field_id: nextFieldId,
      updated_at: now,
    });
    return presentSetup(setupOf(updated, program?.settings ?? '{}'));
  });
}

function presentLead(row: LeadRow) {
  return {
    id: row.id,
    status: row.status as LeadStatus,
    created_at: row.created_at.slice(0, 10),
    lead_info: { name: row.name, email: row.email },
    converted_to: parse<{ key: string; name: string | null; email: string | null } | null>(
      row.converted_to,
      null,
    ),
    submitter: parse<{ id: string; name: string | null; email: string }>(row.submitter, {
      id: '',
      name: null,
      email: '',
    }),
    submission_form: parse<{ question: string; answer: string | null }[]>(row.submission_form, []),
    ...leadFlags(row.status as LeadStatus),
  };
}

/** Lead ids are positive integers; anything else names no lead. */
function leadIdOf(value: string | number): number {
  const text = String(value).trim();
  if (!/^[1-9][0-9]{0,14}$/.test(text)) throw notFound('Lead');
  return Number(text);
}

async function getLeadRowOrThrow(db: Kysely<DB>, ctx: ProgramContext, id: string | number) {
  const row = await repository.findLead(db, ctx.program.id, leadIdOf(id));
  if (!row) throw notFound('Lead');
  return row;
}

const fullName = (name: string | null, surname: string | null) =>
  [name, surname].filter((part) => part !== null && part !== '').join(' ') || null;

/** What is wrong with a lead form's answers, without submitting (a form page shows them with its own). */
export async function leadAnswerProblems(ctx: ProgramContext, cfields: Readonly<Record<string, LeadAnswer>>) {
  const setup = await readSetup(ctx.database.db, ctx.program.id);
  return checkLeadAnswers(setup.fields, cfields).errors;
}

/** `POST /v1/leads`: a partner's lead, its answers checked against the program's form. */
export async function createLead(ctx: ProgramContext, body: CreateLeadBody) {
  const programId = ctx.program.id;
  return ctx.database.db.transaction().execute(async (trx) => {
    const setup = await readSetup(trx, programId);
    if (!setup.enabled) throw new AppError('forbidden', 'Leads are disabled for this program.');
    if (Object.keys(body.partner).length === 0) throw fieldError('partner', 'required');
    const partner = await findPartnerByRef(trx, programId, body.partner);
    const errors: FieldProblem[] = [];
    if (!partner) errors.push(problem('partner', 'invalid'));
    else if (partner.status === 'archived') errors.push(problem('partner', 'archived'));
    const checked = checkLeadAnswers(setup.fields, body.cfields);
    errors.push(...checked.errors);
    if (!partner || errors.length > 0) throw validationError(errors);
    const lead = { name: body.name, email: body.email };
    // Taken inside the write transaction, so creation order and `created_at` agree.
    const now = nowTimestamp(ctx.clock);
    const row = await repository.insertLead(trx, {
      program_id: programId,
      status: 'submitted',
      name: lead.name,
      email: lead.email,
      partner_id: partner.id,
      submitter: JSON.stringify({
        id: partner.public_id,
        name: fullName(partner.name, partner.surname),
        email: partner.email,
      }),
      answers: JSON.stringify(checked.answers),
      submission_form: JSON.stringify(submissionForm(lead, setup.fields, checked.answers)),
      converted_to: null,
      transaction_key: null,
      created_at: now,
      updated_at: now,
    });
    const data = presentLead(row);
    await recordEvent(trx, programId, 'lead.created', data, now);
    return data;
  });
}

export async function getLead(ctx: ProgramContext, id: string) {
  return presentLead(await getLeadRowOrThrow(ctx.database.db, ctx, id));
}

export async function listLeads(ctx: ProgramContext, query: ListLeadsQuery & PageRequest) {
  const db = ctx.database.db;
  const filter: repository.LeadListFilter = {};
  if (query.status !== undefined) filter.status = query.status;
  if (query.email !== undefined) filter.email = query.email;
  if (query.partner !== undefined && Object.keys(query.partner).length > 0) {
    const partner = await findPartnerByRef(db, ctx.program.id, query.partner);
    if (!partner) return [];
    filter.partnerId = partner.id;
  }
  const rows = await repository.listLeads(db, ctx.program.id, filter, pageWindow(query), query.sort);
  return rows.map(presentLead);
}

/**
 * Moves a lead with one conditional update, so of two concurrent moves one wins and the other
 * gets the 422 of the state it finds; an unknown lead is 404.
 */
async function claimLead(
  trx: Kysely<DB>,
  ctx: ProgramContext,
  id: number,
  move: 'convert' | 'reject',
  now: string,
) {
  const from = move === 'convert' ? ['submitted', 'rejected'] : ['submitted'];
  const status = move === 'convert' ? 'converted' : 'rejected';
  const claimed = await repository.moveLead(trx, ctx.program.id, id, from, { status, updated_at: now });
  if (claimed) return claimed;
  const row = await repository.findLead(trx, ctx.program.id, id);
  if (!row) throw notFound('Lead');
  const refusal = refusedLeadMove(row.status as LeadStatus, move);
  throw refusal === undefined ? fieldError('id', 'invalid') : fieldError('id', 'refused', refusal);
}

/**
 * `GET|POST /v1/leads/convert`: in one transaction, the lead becomes `converted`, its e-mail's
 * customer of the submitting partner is created (or reused) and a sale of
 * `commission_transaction_amount` is recorded for it through the transactions service, earning the
 * lead commission when the setup has one of its own.
 */
export async function convertLead(ctx: ProgramContext, input: ConvertLeadInput) {
  const programId = ctx.program.id;
  const id = leadIdOf(input.id);
  amountOrThrow(input.commission_transaction_amount, 'commission_transaction_amount');
  return ctx.database.db.transaction().execute(async (trx) => {
    const now = nowTimestamp(ctx.clock);
    const lead = await claimLead(trx, ctx, id, 'convert', now);
    const partner =
      lead.partner_id === null ? undefined : await findPartnerById(trx, programId, lead.partner_id);
    if (!partner) throw fieldError('id', 'refused', 'The partner who submitted the lead no longer exists.');
    if (partner.status === 'archived')
      throw fieldError('id', 'refused', 'The partner who submitted the lead is archived.');
    const existing = await findCustomerByRef(trx, programId, { email: lead.email });
    if (existing && existing.partner_id !== partner.id)
      throw fieldError('id', 'refused', "The lead's email address belongs to a customer of another partner.");
    const setup = await readSetup(trx, programId);
    const own = setup.commissionType === 'lead_specific';
    const key = newKey();
    await recordAffiliateSale(
      trx,
      ctx,
      {
        key,
        action: 'sale',
        amount: input.commission_transaction_amount,
        ...(own ? { amount_units: setup.commission.currency } : {}),
        customer: existing
          ? { key: existing.key }
          : { email: lead.email, name: lead.name, partner: { id: partner.public_id } },
        options: { create_customer: true },
      },
      own ? { type: setup.commission.commission_type, value: setup.commission.commission } : undefined,
    );
    const customer = existing ?? (await findCustomerByRef(trx, programId, { email: lead.email }));
    // A conversion of another partner's lead with this e-mail may have created the customer
    // first; the sale then went to that customer, and this conversion must not stand.
    if (customer?.partner_id !== partner.id)
      throw fieldError('id', 'refused', "The lead's email address belongs to a customer of another partner.");
    const converted = await repository.recordConversion(trx, programId, id, {
      converted_to: JSON.stringify({
        key: customer?.key ?? '',
        name: customer?.name ?? null,
        email: customer?.email ?? null,
      }),
      transaction_key: key,
    });
    const data = presentLead(converted);
    await recordEvent(trx, programId, 'lead.converted', data, now);
    return data;
  });
}

/** `GET|POST /v1/leads/reject`: a submitted lead becomes `rejected` (it can still be converted). */
export async function rejectLead(ctx: ProgramContext, input: { id: string | number }) {
  const id = leadIdOf(input.id);
  return ctx.database.db.transaction().execute(async (trx) => {
    const now = nowTimestamp(ctx.clock);
    const data = presentLead(await claimLead(trx, ctx, id, 'reject', now));
    await recordEvent(trx, ctx.program.id, 'lead.rejected', data, now);
    return data;
  });
}

/** `DELETE /v1/leads/{id}`: the lead goes; a sale its conversion recorded stays. */
export async function deleteLead(ctx: ProgramContext, id: string) {
  await ctx.database.db.transaction().execute(async (trx) => {
    const row = await getLeadRowOrThrow(trx, ctx, id);
    await repository.deleteLead(trx, ctx.program.id, row.id);
    await recordEvent(trx, ctx.program.id, 'lead.deleted', presentLead(row), nowTimestamp(ctx.clock));
  });
}
