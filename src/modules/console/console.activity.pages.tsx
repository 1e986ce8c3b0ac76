import type { FastifyInstance } from 'fastify';
import { pageRoute, sendPage } from '../../pages/plugin.tsx';
import { activityPage } from './console.activity.service.ts';
import { ActivityPage } from './console.activity.views.tsx';
import { type ProgramParams, pageNumber, programOf, signedIn } from './console.requests.pages.tsx';

/** `/admin/programs/{program}/activity`: the activity log, for every role. */
export async function consoleActivityRoutes(app: FastifyInstance) {
  app.get<{ Params: ProgramParams; Querystring: { page?: string } }>('/programs/:program/activity', {
    ...pageRoute,
    handler: async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      const program = await programOf(request, user);
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
