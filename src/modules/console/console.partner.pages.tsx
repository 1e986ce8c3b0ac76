import type { FastifyInstance } from 'fastify';
import { formText } from '../../pages/forms.tsx';
import { formRoute, pageNotFound, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import { partnerDetail, setArchived } from './console.partner.service.ts';
import { PartnerPage } from './console.partner.views.tsx';
import { type ProgramParams, programRequest } from './console.requests.pages.tsx';

/** `/admin/programs/{program}/partners/{id}`: one partner of an affiliate program. */

type PartnerParams = ProgramParams & { id: string };

const doneText: Record<string, string | undefined> = {
  archive: 'The partner was archived: its links no longer bring customers.',
  unarchive: 'The partner is back from the archive.',
};

export async function consolePartnerRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  app.get<{ Params: PartnerParams; Querystring: { done?: string } }>('/programs/:program/partners/:id', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { section: 'partners' });
      if (!signed) return reply;
      const { user, program } = signed;
      const partner = await partnerDetail(program, request.params.id);
      if (!partner) throw pageNotFound();
      return sendPage(
        reply,
        200,
        <PartnerPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          partner={partner}
          done={doneText[request.query.done ?? '']}
        />,
      );
    },
  });

  app.post<{ Params: PartnerParams }>('/programs/:program/partners/:id/archive', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { section: 'partners', write: true });
      if (!signed) return reply;
      const { program } = signed;
      const action = formText(request.body, 'action');
      if (action !== 'archive' && action !== 'unarchive') throw pageNotFound();
      if (!(await setArchived(program, request.params.id, action === 'archive'))) throw pageNotFound();
      return seeOther(
        reply,
        `${program.base}/partners/${encodeURIComponent(request.params.id)}?done=${action}`,
      );
    },
  });
}
