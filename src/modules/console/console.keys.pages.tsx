import type { FastifyInstance } from 'fastify';
import { formText } from '../../pages/forms.tsx';
import { formRoute, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import { createKey, keysOf, revokeKey } from './console.keys.service.ts';
import { KeysPage } from './console.keys.views.tsx';
import { type ProgramParams, programRequest } from './console.requests.pages.tsx';
import { checkOwner } from './console.team.pages.tsx';

/** `/admin/programs/{program}/keys` (owners only). */
export async function consoleKeyRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  app.get<{ Params: ProgramParams; Querystring: { done?: string } }>('/programs/:program/keys', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      checkOwner(program);
      const done =
        request.query.done === 'revoked'
          ? 'The key was revoked: it stops working within a second.'
          : undefined;
      return sendPage(
        reply,
        200,
        <KeysPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          keys={await keysOf(program)}
          done={done}
        />,
      );
    },
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/keys', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      checkOwner(program);
      const values = { name: formText(request.body, 'name'), scope: formText(request.body, 'scope') };
      const outcome = await createKey(program, values);
      // The token is shown on this answer only: never in a URL, never again.
      return sendPage(
        reply,
        outcome.kind === 'created' ? 200 : 422,
        <KeysPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          keys={await keysOf(program)}
          {...(outcome.kind === 'created'
            ? { created: { name: outcome.name, token: outcome.token } }
            : { values, errors: outcome.errors })}
        />,
      );
    },
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/keys/revoke', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { program } = signed;
      checkOwner(program);
      await revokeKey(program, formText(request.body, 'key'));
      return seeOther(reply, `${program.base}/keys?done=revoked`);
    },
  });
}
