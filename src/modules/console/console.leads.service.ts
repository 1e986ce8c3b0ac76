import { convertLead, getLead, listLeads, rejectLead } from '../leads/leads.service.ts';
import { found, refusedAsErrors } from './console.outcomes.service.ts';
import { type ConsoleProgram, logActivity } from './console.programs.service.ts';

/** The leads partners submit (affiliate programs): the list, one lead, `Convert` and `Reject`. */

export { ConvertLeadBody } from '../leads/leads.schemas.ts';

export const PAGE_SIZE = 50;
export const leadStatuses = ['submitted', 'converted', 'rejected'] as const;
export type LeadStatus = (typeof leadStatuses)[number];

type LeadWire = Awaited<ReturnType<typeof getLead>>;

const itemOf = (lead: LeadWire) => ({
  id: String(lead.id),
  name: lead.lead_info.name || lead.lead_info.email,
  email: lead.lead_info.email,
  submitter: lead.submitter.name || lead.submitter.email,
  submitterId: lead.submitter.id,
  status: lead.status,
  created: lead.created_at,
  canConvert: lead.can_be_converted,
  canReject: lead.can_be_rejected,
});

export async function leadsPage(program: ConsoleProgram, status: LeadStatus | undefined, page: number) {
  const rows = await listLeads(program.ctx, {
    page,
    limit: PAGE_SIZE,
    sort: 'desc',
    ...(status ? { status } : {}),
  });
  return { items: rows.slice(0, PAGE_SIZE).map(itemOf), hasNext: rows.length > PAGE_SIZE };
}

/** One lead with its answers; undefined for another program's or an unknown id. */
export async function leadDetail(program: ConsoleProgram, id: string) {
  const lead = await found(() => getLead(program.ctx, id));
  if (!lead) return undefined;
  return {
    ...itemOf(lead),
    answers: lead.submission_form.map((entry, i) => ({
      id: String(i),
      question: entry.question,
      answer: entry.answer ?? '—',
    })),
    convertedTo: lead.converted_to?.key ?? '',
  };
}

export type LeadDetail = NonNullable<Awaited<ReturnType<typeof leadDetail>>>;

/** `Convert`: the lead becomes a customer of its partner with a sale of the amount (the API's checks). */
export const convert = (program: ConsoleProgram, lead: LeadDetail, amount: number | string) =>
  refusedAsErrors(async () => {
    const after = await convertLead(program.ctx, { id: lead.id, commission_transaction_amount: amount });
    await logActivity(program, 'lead.convert', {
      subject: lead.id,
      changes: {
        status: { before: lead.status, after: after.status },
        amount: { before: null, after: String(amount) },
      },
    });
  }, 'commission_transaction_amount');

export const reject = (program: ConsoleProgram, lead: LeadDetail) =>
  refusedAsErrors(async () => {
    const after = await rejectLead(program.ctx, { id: lead.id });
    await logActivity(program, 'lead.reject', {
      subject: lead.id,
      changes: { status: { before: lead.status, after: after.status } },
    });
  }, 'id');
