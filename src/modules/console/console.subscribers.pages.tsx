import type { FastifyInstance } from 'fastify';
import { formParser, formText } from '../../pages/forms.tsx';
import { formRoute, linkBase, pageNotFound, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import { problemsByField } from './console.outcomes.service.ts';
import type { ConsoleProgram } from './console.programs.service.ts';
import {
  checkWrite,
  type ProgramParams,
  pageNumber,
  programRequest,
  sectionShown,
} from './console.requests.pages.tsx';
import {
  addMilestone,
  CreateRewardBody,
  milestonesOf,
  removeMilestone,
  subscribersPage,
} from './console.subscribers.service.ts';
import { type MilestoneForm, MilestonesPage, SubscribersPage } from './console.subscribers.views.tsx';

/** `/admin/programs/{program}/subscribers` and `/milestones` of newsletter programs. */

const milestoneForm = formParser(CreateRewardBody);

function newsletterOnly(program: ConsoleProgram) {
  sectionShown(program, 'subscribers');
}

const doneText: Record<string, string | undefined> = {
  added: 'The milestone was added. Subscribers already past it have unlocked it.',
  deleted: 'The milestone was deleted.',
};

export async function consoleSubscriberRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  app.get<{ Params: ProgramParams; Querystring: { q?: string; page?: string } }>(
    '/programs/:program/subscribers',
    {
      ...pageRoute,
      handler: async (request, reply) => {
        const signed = await programRequest(request, reply);
        if (!signed) return reply;
        const { user, program } = signed;
        newsletterOnly(program);
        const search = (request.query.q ?? '').trim().slice(0, 255);
        const page = pageNumber(request.query.page);
        const list = await subscribersPage(program, search, page, linkBase(request));
        const csrf = reply.generateCsrf();
        const view = { user, csrf, program, search, list, page };
        return sendPage(reply, 200, <SubscribersPage {...view} />);
      },
    },
  );

  app.get<{ Params: ProgramParams; Querystring: { done?: string } }>('/programs/:program/milestones', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      newsletterOnly(program);
      return sendPage(
        reply,
        200,
        <MilestonesPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          milestones={await milestonesOf(program)}
          done={doneText[request.query.done ?? '']}
        />,
      );
    },
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/milestones', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      newsletterOnly(program);
      checkWrite(program);
      const values: MilestoneForm = {
        name: formText(request.body, 'name'),
        subscribers_count: formText(request.body, 'subscribers_count'),
        description: formText(request.body, 'description'),
        fulfillment_type: formText(request.body, 'fulfillment_type'),
        fulfillment_value: formText(request.body, 'fulfillment_value'),
      };
      // Checked by the schema of `POST /v1/rewards`, then by the service (the count's range).
      const parsed = milestoneForm(
        Object.fromEntries(Object.entries(values).filter(([, value]) => value !== '')),
      );
      const outcome =
        'problems' in parsed
          ? { kind: 'invalid' as const, errors: problemsByField(parsed.problems) }
          : await addMilestone(program, parsed.body, linkBase(request));
      if (outcome.kind === 'done') return seeOther(reply, `${program.base}/milestones?done=added`);
      return sendPage(
        reply,
        422,
        <MilestonesPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          milestones={await milestonesOf(program)}
          values={values}
          errors={outcome.errors}
        />,
      );
    },
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/milestones/delete', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { program } = signed;
      newsletterOnly(program);
      checkWrite(program);
      if (!(await removeMilestone(program, formText(request.body, 'id')))) throw pageNotFound();
      return seeOther(reply, `${program.base}/milestones?done=deleted`);
    },
  });
}
