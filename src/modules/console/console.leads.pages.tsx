import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formParser, formText } from '../../pages/forms.tsx';
import { formRoute, pageNotFound, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import {
  ConvertLeadBody,
  convert,
  type LeadDetail,
  leadDetail,
  leadStatuses,
  leadsPage,
  reject,
} from './console.leads.service.ts';
import { LeadPage, LeadsPage } from './console.leads.views.tsx';
import { problemsByField } from './console.outcomes.service.ts';
import type { ConsoleProgram } from './console.programs.service.ts';
import {
  checkWrite,
  type ProgramParams,
  pageNumber,
  programOf,
  programRequest,
  sectionShown,
  signedIn,
} from './console.requests.pages.tsx';

/** `/admin/programs/{program}/leads…` of affiliate programs. */

type LeadParams = ProgramParams & { id: string };

const convertForm = formParser(ConvertLeadBody);

const doneText: Record<string, string | undefined> = {
  converted: 'The lead was converted: its customer and sale are recorded.',
  rejected: 'The lead was rejected. It can still be converted.',
};

export async function consoleLeadRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  /** The signed-in user, the program and the lead of a lead's URL; 404 for another program's. */
  const leadOf = async (request: FastifyRequest<{ Params: LeadParams }>, reply: FastifyReply) => {
    const user = await signedIn(request, reply);
    if (!user) return undefined;
    const program = await programOf(request, user);
    sectionShown(program, 'leads');
    const lead = await leadDetail(program, request.params.id);
    if (!lead) throw pageNotFound();
    return { user, program, lead };
  };

  const refused = (
    reply: FastifyReply,
    at: { user: ConsoleUser; program: ConsoleProgram; lead: LeadDetail },
    errors: Record<string, string>,
    amount = '',
  ) =>
    sendPage(
      reply,
      422,
      <LeadPage {...at} csrf={reply.generateCsrf()} amount={amount.slice(0, 32)} errors={errors} />,
    );

  app.get<{ Params: ProgramParams; Querystring: { status?: string; page?: string } }>(
    '/programs/:program/leads',
    {
      ...pageRoute,
      handler: async (request, reply) => {
        const signed = await programRequest(request, reply, { section: 'leads' });
        if (!signed) return reply;
        const { user, program } = signed;
        const status = leadStatuses.find((s) => s === request.query.status);
        const page = pageNumber(request.query.page);
        const list = await leadsPage(program, status, page);
        return sendPage(
          reply,
          200,
          <LeadsPage
            user={user}
            csrf={reply.generateCsrf()}
            program={program}
            filter={status ?? ''}
            list={list}
            page={page}
          />,
        );
      },
    },
  );

  app.get<{ Params: LeadParams; Querystring: { done?: string } }>('/programs/:program/leads/:id', {
    ...pageRoute,
    handler: async (request, reply) => {
      const at = await leadOf(request, reply);
      if (!at) return reply;
      const done = doneText[request.query.done ?? ''];
      return sendPage(reply, 200, <LeadPage {...at} csrf={reply.generateCsrf()} done={done} />);
    },
  });

  app.post<{ Params: LeadParams }>('/programs/:program/leads/:id/convert', {
    ...form,
    handler: async (request, reply) => {
      const at = await leadOf(request, reply);
      if (!at) return reply;
      checkWrite(at.program);
      const amount = formText(request.body, 'commission_transaction_amount');
      // Checked by the schema of `POST /v1/leads/convert`, then by the service.
      const parsed = convertForm({
        id: at.lead.id,
        ...(amount === '' ? {} : { commission_transaction_amount: amount }),
      });
      const outcome =
        'problems' in parsed
          ? { kind: 'invalid' as const, errors: problemsByField(parsed.problems) }
          : await convert(at.program, at.lead, parsed.body.commission_transaction_amount);
      if (outcome.kind === 'done')
        return seeOther(reply, `${at.program.base}/leads/${at.lead.id}?done=converted`);
      return refused(reply, at, outcome.errors, amount);
    },
  });

  app.post<{ Params: LeadParams }>('/programs/:program/leads/:id/reject', {
    ...form,
    handler: async (request, reply) => {
      const at = await leadOf(request, reply);
      if (!at) return reply;
      checkWrite(at.program);
      const outcome = await reject(at.program, at.lead);
      if (outcome.kind === 'done')
        return seeOther(reply, `${at.program.base}/leads/${at.lead.id}?done=rejected`);
      return refused(reply, at, outcome.errors);
    },
  });
}
