import type { FastifyInstance } from 'fastify';
import { formText } from '../../pages/forms.tsx';
import { formRoute, pageNotFound, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import {
  createConsolePayout,
  type ExportFormat,
  payoutDetail,
  payoutFile,
  payoutStatuses,
  payoutsPage,
  programCurrency,
  settlePayout,
} from './console.payouts.service.ts';
import { PayoutPage, PayoutsPage } from './console.payouts.views.tsx';
import type { ConsoleProgram } from './console.programs.service.ts';
import { type ProgramParams, pageNumber, programRequest } from './console.requests.pages.tsx';

/** `/admin/programs/{program}/payouts…` of affiliate programs. */

type PayoutParams = ProgramParams & { id: string };

const doneText: Record<string, string | undefined> = {
  created: 'The payout was created.',
  'mark-paid': 'The payout is marked as paid.',
  cancel: 'The payout was cancelled: its commissions can be paid again.',
};

const formats: readonly ExportFormat[] = ['paypal', 'wise', 'csv'];

export async function consolePayoutRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  const listPage = async (
    program: ConsoleProgram,
    query: { status?: string; page?: string; done?: string },
    extra: { currency?: string; problem?: string },
  ) => {
    const status = payoutStatuses.find((s) => s === query.status);
    const page = pageNumber(query.page);
    return {
      filter: status ?? '',
      list: await payoutsPage(program, status, page),
      page,
      currency: extra.currency ?? (await programCurrency(program)),
      problem: extra.problem,
      done: doneText[query.done ?? ''],
    };
  };

  app.get<{ Params: ProgramParams; Querystring: { status?: string; page?: string; done?: string } }>(
    '/programs/:program/payouts',
    {
      ...pageRoute,
      handler: async (request, reply) => {
        const signed = await programRequest(request, reply, { section: 'payouts' });
        if (!signed) return reply;
        const { user, program } = signed;
        const view = await listPage(program, request.query, {});
        return sendPage(
          reply,
          200,
          <PayoutsPage user={user} csrf={reply.generateCsrf()} program={program} {...view} />,
        );
      },
    },
  );

  app.post<{ Params: ProgramParams }>('/programs/:program/payouts', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { section: 'payouts', write: true });
      if (!signed) return reply;
      const { user, program } = signed;
      const currency = formText(request.body, 'currency').toUpperCase();
      const outcome = await createConsolePayout(program, currency);
      if (outcome.kind === 'done')
        return seeOther(reply, `${program.base}/payouts/${outcome.id}?done=created`);
      const view = await listPage(program, {}, { currency, problem: outcome.problem });
      return sendPage(
        reply,
        422,
        <PayoutsPage user={user} csrf={reply.generateCsrf()} program={program} {...view} />,
      );
    },
  });

  app.get<{ Params: PayoutParams; Querystring: { done?: string } }>('/programs/:program/payouts/:id', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { section: 'payouts' });
      if (!signed) return reply;
      const { user, program } = signed;
      const payout = await payoutDetail(program, request.params.id);
      if (!payout) throw pageNotFound();
      return sendPage(
        reply,
        200,
        <PayoutPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          payout={payout}
          done={doneText[request.query.done ?? '']}
        />,
      );
    },
  });

  app.post<{ Params: PayoutParams }>('/programs/:program/payouts/:id/settle', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { section: 'payouts', write: true });
      if (!signed) return reply;
      const { user, program } = signed;
      const action = formText(request.body, 'action');
      if (action !== 'mark-paid' && action !== 'cancel') throw pageNotFound();
      const outcome = await settlePayout(program, request.params.id, action);
      const back = `${program.base}/payouts/${request.params.id}`;
      if (outcome.kind === 'done') return seeOther(reply, `${back}?done=${action}`);
      const payout = await payoutDetail(program, request.params.id);
      if (!payout) throw pageNotFound();
      return sendPage(
        reply,
        422,
        <PayoutPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          payout={payout}
          problem={outcome.problem}
        />,
      );
    },
  });

  app.get<{ Params: PayoutParams; Querystring: { format?: string } }>(
    '/programs/:program/payouts/:id/export',
    {
      ...pageRoute,
      handler: async (request, reply) => {
        const signed = await programRequest(request, reply, { section: 'payouts' });
        if (!signed) return reply;
        const { program } = signed;
        const format = formats.find((f) => f === request.query.format) ?? 'csv';
        if (!(await payoutDetail(program, request.params.id))) throw pageNotFound();
        const file = await payoutFile(program, request.params.id, format);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${file.filename}"`)
          .header('cache-control', 'no-store')
          .send(file.stream);
      },
    },
  );
}
