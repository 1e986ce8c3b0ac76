import type { FastifyInstance } from 'fastify';
import { formText } from '../../pages/forms.tsx';
import {
  formRoute,
  linkBase,
  PageError,
  pageDeps,
  pageRoute,
  seeOther,
  sendPage,
} from '../../pages/plugin.tsx';
import { rawText } from './console.account.pages.tsx';
import { type ConsoleProgram, mayManageTeam } from './console.programs.service.ts';
import { CONSOLE_PATH, type ProgramParams, programRequest, setSession } from './console.requests.pages.tsx';
import { acceptInvite, invite, readInvite, removeMember, teamOf } from './console.team.service.ts';
import { InvitePage, TeamPage } from './console.team.views.tsx';

/** `/admin/programs/{program}/team` (owners only) and `/admin/invite/{token}`. */

/** Team and keys are the owners': anyone else is refused with 403. */
export function checkOwner(program: ConsoleProgram) {
  if (!mayManageTeam(program.role))
    throw new PageError(403, 'not an owner', {
      title: 'Not allowed',
      text: 'Only the owners of this program manage its team.',
    });
}

const removedText: Record<string, string | undefined> = {
  removed: 'The member was removed and signed out.',
  invited: 'The invitation was sent.',
};

const problemText: Record<string, string | undefined> = {
  last_owner: 'The last owner stays: make someone else an owner first.',
  missing: 'That member is not on the team any more.',
};

export async function consoleTeamRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  app.get<{ Params: ProgramParams; Querystring: { done?: string; problem?: string } }>(
    '/programs/:program/team',
    {
      ...pageRoute,
      handler: async (request, reply) => {
        const signed = await programRequest(request, reply);
        if (!signed) return reply;
        const { user, program } = signed;
        checkOwner(program);
        return sendPage(
          reply,
          200,
          <TeamPage
            user={user}
            csrf={reply.generateCsrf()}
            program={program}
            team={await teamOf(program)}
            done={removedText[request.query.done ?? '']}
            problem={problemText[request.query.problem ?? '']}
          />,
        );
      },
    },
  );

  app.post<{ Params: ProgramParams }>('/programs/:program/team/invite', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      checkOwner(program);
      const values = { email: formText(request.body, 'email'), role: formText(request.body, 'role') };
      const outcome = await invite(program, user, values, linkBase(request));
      if (outcome.kind === 'sent') return seeOther(reply, `${program.base}/team?done=invited`);
      return sendPage(
        reply,
        422,
        <TeamPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          team={await teamOf(program)}
          values={values}
          errors={outcome.errors}
        />,
      );
    },
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/team/remove', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { program } = signed;
      checkOwner(program);
      const id = formText(request.body, 'user');
      const outcome = /^\d{1,15}$/.test(id) ? await removeMember(program, Number(id)) : 'missing';
      if (outcome === 'removed') return seeOther(reply, `${program.base}/team?done=removed`);
      return seeOther(reply, `${program.base}/team?problem=${outcome}`);
    },
  });

  app.get<{ Params: { token: string } }>('/invite/:token', {
    ...pageRoute,
    handler: async (request, reply) => {
      const invitation = await readInvite(pageDeps(request), request.params.token);
      return sendPage(
        reply,
        invitation ? 200 : 410,
        <InvitePage csrf={reply.generateCsrf()} invitation={invitation} />,
      );
    },
  });

  app.post<{ Params: { token: string } }>('/invite/:token', {
    ...form,
    handler: async (request, reply) => {
      const deps = pageDeps(request);
      const { token } = request.params;
      const outcome = await acceptInvite(deps, token, rawText(request.body, 'password'));
      if (outcome.kind === 'signed_in') {
        setSession(request, reply, outcome.token);
        return seeOther(reply, `${CONSOLE_PATH}/programs/${outcome.programPublicId}`);
      }
      const invitation = outcome.kind === 'gone' ? undefined : await readInvite(deps, token);
      const error =
        outcome.kind === 'wrong_password'
          ? 'That is not the password of this account.'
          : outcome.kind === 'invalid'
            ? outcome.error
            : undefined;
      return sendPage(
        reply,
        invitation ? 422 : 410,
        <InvitePage csrf={reply.generateCsrf()} invitation={invitation} error={error} />,
      );
    },
  });
}
