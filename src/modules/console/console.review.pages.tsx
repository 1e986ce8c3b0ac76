import type { FastifyInstance } from 'fastify';
import { formText } from '../../pages/forms.tsx';
import { formRoute, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import { commissionsPage, reviewSelected } from './console.commissions.service.ts';
import { type CommissionFilter, CommissionsPage, commissionFilters } from './console.commissions.views.tsx';
import { partnersPage, reviewPartners } from './console.partners.service.ts';
import { type PartnerFilter, PartnersPage, partnerFilters } from './console.partners.views.tsx';
import { formList, type ProgramParams, pageNumber, programRequest } from './console.requests.pages.tsx';

/** `/admin/programs/{program}/partners` and `/commissions`: the lists an owner reviews. */

type ListQuery = { status?: string; q?: string; page?: string; done?: string };

const oneOf = <T extends string>(
  choices: readonly { value: T }[],
  value: string | undefined,
): T | undefined => choices.find((choice) => choice.value === (value ?? ''))?.value;

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** What the page says after an action, carried in the redirect's query (`done=approved-3`). */
function doneText(done: string | undefined, noun: string): string | undefined {
  const match = /^(approved|rejected|denied)-(\d{1,4})$/.exec(done ?? '');
  if (!match) return undefined;
  return `${plural(Number(match[2]), noun)} ${match[1]}.`;
}

export async function consoleReviewRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  app.get<{ Params: ProgramParams; Querystring: ListQuery }>('/programs/:program/partners', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { section: 'review' });
      if (!signed) return reply;
      const { user, program } = signed;
      const filter: PartnerFilter = oneOf(partnerFilters, request.query.status) ?? '';
      const search = (request.query.q ?? '').trim().slice(0, 255);
      const page = pageNumber(request.query.page);
      const { items, hasNext } = await partnersPage(program, filter, search, page);
      return sendPage(
        reply,
        200,
        <PartnersPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          filter={filter}
          search={search}
          partners={items}
          page={page}
          hasNext={hasNext}
          done={doneText(request.query.done, 'partner')}
        />,
      );
    },
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/partners/review', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { section: 'review', write: true });
      if (!signed) return reply;
      const { program } = signed;
      // A row's own button names its action and partner; the buttons below the list act on the selection.
      const one = /^(approve|reject):(.{1,255})$/.exec(formText(request.body, 'one'));
      const action = one?.[1] ?? formText(request.body, 'action');
      const ids = one?.[2] ? [one[2]] : formList(request.body, 'ids');
      const back = `${program.base}/partners`;
      if ((action !== 'approve' && action !== 'reject') || ids.length === 0) return seeOther(reply, back);
      const { done } = await reviewPartners(program, action, ids.slice(0, 500));
      return seeOther(reply, `${back}?done=${action === 'approve' ? 'approved' : 'rejected'}-${done}`);
    },
  });

  app.get<{ Params: ProgramParams; Querystring: ListQuery }>('/programs/:program/commissions', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { section: 'review' });
      if (!signed) return reply;
      const { user, program } = signed;
      const filter: CommissionFilter = oneOf(commissionFilters, request.query.status) ?? '';
      const page = pageNumber(request.query.page);
      const { items, hasNext } = await commissionsPage(program, filter, page);
      return sendPage(
        reply,
        200,
        <CommissionsPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          filter={filter}
          commissions={items}
          page={page}
          hasNext={hasNext}
          done={doneText(request.query.done, 'commission')}
        />,
      );
    },
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/commissions/review', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { section: 'review', write: true });
      if (!signed) return reply;
      const { user, program } = signed;
      const action = formText(request.body, 'action');
      const back = `${program.base}/commissions`;
      if (action !== 'approve' && action !== 'deny') return seeOther(reply, back);
      const outcome = await reviewSelected(
        program,
        action,
        formList(request.body, 'ids').slice(0, 500),
        formText(request.body, 'reason'),
      );
      if (outcome.kind === 'done')
        return seeOther(
          reply,
          `${back}?done=${action === 'approve' ? 'approved' : 'denied'}-${outcome.count}`,
        );
      const { items, hasNext } = await commissionsPage(program, '', 1);
      return sendPage(
        reply,
        422,
        <CommissionsPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          filter=""
          commissions={items}
          page={1}
          hasNext={hasNext}
          problem={outcome.problem}
        />,
      );
    },
  });
}
