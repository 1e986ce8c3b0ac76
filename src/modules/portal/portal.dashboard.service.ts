import { AppError, type FieldProblem } from '../../core/errors.ts';
import { dailySeries, maskedName } from '../../core/portal.ts';
import { addDays, dayOf, nowTimestamp } from '../../core/time.ts';
import { listLatestCommissionsOfPartner, settleDueCommissions } from '../commissions/commissions.service.ts';
import { listLatestCustomersOfPartner } from '../customers/customers.service.ts';
import { createLead, getLeadSetup, leadAnswerProblems, listLeads } from '../leads/leads.service.ts';
import { createPartnerLink } from '../partners/partners.links.service.ts';
import { getPartnerDashboardFigures } from '../partners/partners.service.ts';
import { listPartnerPayouts } from '../payouts/payouts.service.ts';
import { emailProblem, MAX_TEXT } from './portal.accounts.service.ts';
import { isMissing } from './portal.payout.service.ts';
import type { PortalProgram, SignedInPartner } from './portal.service.ts';

/** How many days the dashboard's chart covers. */
export const CHART_DAYS = 30;

export const LATEST = 10;

/** The dashboard's latest payouts. */
export const PAYOUTS_SHOWN = 5;

/** Everything the dashboard shows, from counters and the newest rows of each list. */
export async function getDashboard(portal: PortalProgram, partner: SignedInPartner) {
  const { ctx } = portal;
  const today = dayOf(nowTimestamp(ctx.clock));
  const from = addDays(today, -(CHART_DAYS - 1));
  const figures = await getPartnerDashboardFigures(ctx, partner.row, settleDueCommissions, from);
  const partnerId = Number(partner.row.id);
  const customers = await listLatestCustomersOfPartner(ctx, partnerId, LATEST);
  const commissions = await listLatestCommissionsOfPartner(ctx, partnerId, LATEST);
  const payouts = await listPartnerPayouts(ctx, Number(partner.row.id), PAYOUTS_SHOWN);
  return {
    figures,
    chart: dailySeries(figures.clicksByDay, today, CHART_DAYS),
    customers: customers.map((customer) => ({
      name: maskedName(customer.name, customer.email, customer.surname),
      since: dayOf(customer.created_at),
    })),
    commissions: commissions.map((commission) => ({
      id: commission.id,
      amount: commission.amount,
      currency: commission.currency,
      status: commission.status,
      kind: commission.kind,
      day: dayOf(commission.created_at),
    })),
    payouts: payouts.map((payout) => ({
      id: payout.id,
      amount: payout.amount,
      currency: payout.currency,
      status: payout.status,
      day: dayOf(payout.paid_at ?? payout.created_at),
    })),
  };
}

export const LEADS_SHOWN = 25;

/** The lead form page: the program's form (when leads are on) and the partner's latest leads. */
export async function getLeadPage(portal: PortalProgram, partner: SignedInPartner) {
  const { ctx } = portal;
  const setup = await getLeadSetup(ctx);
  const leads = await listLeads(ctx, {
    page: 1,
    limit: LEADS_SHOWN,
    sort: 'desc',
    partner: { id: partner.row.public_id },
  });
  return {
    enabled: setup.leads_enabled === 'true',
    fields: setup.leads_custom_form_fields,
    leads: leads.slice(0, LEADS_SHOWN).map((lead) => ({
      id: lead.id,
      name: lead.lead_info.name,
      email: lead.lead_info.email,
      status: lead.status,
      day: lead.created_at,
    })),
  };
}

export interface LeadForm {
  name: string;
  email: string;
  /** Answers by form field id; a checkbox field's answer is the list of ticked choices. */
  answers: Record<string, string | string[]>;
}

/** Errors by form field: `name`, `email`, or a form field's id. */
export type LeadErrors = Record<string, string>;

/**
 * A lead from the portal's form, through the leads service with this partner as submitter
 * (`lead.created`, the form's rules); the service's messages become the page's.
 */
export async function submitLead(
  portal: PortalProgram,
  partner: SignedInPartner,
  form: LeadForm,
): Promise<{ kind: 'invalid'; errors: LeadErrors } | { kind: 'disabled' } | { kind: 'submitted' }> {
  const errors: LeadErrors = {};
  if (form.name === '') errors.name = 'Enter the name of the person or company.';
  else if (form.name.length > MAX_TEXT) errors.name = `Enter at most ${MAX_TEXT} characters.`;
  const email = emailProblem(form.email);
  if (email) errors.email = email;
  const answers = Object.fromEntries(Object.entries(form.answers).filter(([, answer]) => answer.length > 0));
  let problems: readonly FieldProblem[] = [];
  try {
    if (Object.keys(errors).length > 0) problems = await leadAnswerProblems(portal.ctx, answers);
    else {
      await createLead(portal.ctx, {
        name: form.name,
        email: form.email,
        partner: { id: partner.row.public_id },
        cfields: answers,
      });
      return { kind: 'submitted' };
    }
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.status === 403) return { kind: 'disabled' };
    if (error.status !== 422) throw error;
    problems = error.problems;
  }
  // The service names answers `cfields.{id}` in the API's words; the page says it plainly.
  for (const path of new Set(problems.map((found) => found.field))) {
    const id = /^cfields\.(\d+)$/.exec(path)?.[1];
    if (id)
      errors[id] = problems.some((found) => found.field === path && isMissing(found))
        ? 'Answer this question.'
        : 'Check this answer.';
  }
  return { kind: 'invalid', errors };
}

/** What a link key may hold: it travels in URLs (the API's rule). */
export const LINK_KEY = /^[^\s/?#&]{1,255}$/;

/**
 * An additional link with a key of the partner's choice (`partner_custom_links_enabled`), through
 * the partner links service as `POST /v1/partner_referral_links` makes one; answers the problem.
 */
export async function createCustomLink(
  portal: PortalProgram,
  partner: SignedInPartner,
  key: string,
): Promise<string | undefined> {
  if (key === '') return 'Enter a key for the new link.';
  if (!LINK_KEY.test(key)) return 'Use at most 255 characters, without spaces, /, ?, # or &.';
  try {
    await createPartnerLink(portal.ctx, { key, partner: { id: partner.row.public_id }, is_additional: true });
    return undefined;
  } catch (error) {
    if (error instanceof AppError && error.status === 422 && error.problemOn('key'))
      return 'This key is taken: choose another one.';
    throw error;
  }
}
