import type { FastifyInstance } from 'fastify';
import { pageRoute, sendPage } from '../../pages/plugin.tsx';
import { activityPage } from './console.activity.service.ts';
import { ActivityPage } from './console.activity.views.tsx';
import { type ProgramParams, pageNumber, programRequest } from './console.requests.pages.tsx';

/** `/admin/programs/{program}/activity`: the activity log, for every role. */
export async function consoleActivityRoutes(app: FastifyInstance) {
  app.get<{ Params: ProgramParams; Querystring: { page?: string } }>('/programs/:program/activity', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      // The API's writes noted on this instance are stored first: the page shows them.
      await request.server.apiWriteLog.flush();
      const page = pageNumber(request.query.page);
      return sendPage(
        reply,
        200,
        <ActivityPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          list={await activityPage(program, page)}
          page={page}
        />,
      );
    },
  });
}
