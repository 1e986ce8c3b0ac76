import type { FastifyInstance } from 'fastify';
import { formText } from '../../pages/forms.tsx';
import { formRoute, linkBase, pageDeps, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import { getOverview } from './console.overview.service.ts';
import { OverviewPage } from './console.overview.views.tsx';
import { createConsoleProgram, isProgramType, programsOf } from './console.programs.service.ts';
import { type NewProgramErrors, NewProgramPage, ProgramsPage } from './console.programs.views.tsx';
import { CONSOLE_PATH, type ProgramParams, programRequest, signedIn } from './console.requests.pages.tsx';

/** `/admin/programs`: the user's programs, a new program, and each program's overview. */
export async function consoleProgramRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  app.get('/programs', {
    ...pageRoute,
    handler: async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      const programs = await programsOf(pageDeps(request), user);
      return sendPage(
        reply,
        200,
        <ProgramsPage user={user} csrf={reply.generateCsrf()} programs={programs} />,
      );
    },
  });

  app.get('/programs/new', {
    ...pageRoute,
    handler: async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      if (!user.operator) return seeOther(reply, `${CONSOLE_PATH}/programs`);
      return sendPage(reply, 200, <NewProgramPage user={user} csrf={reply.generateCsrf()} />);
    },
  });

  app.post('/programs/new', {
    ...form,
    handler: async (request, reply) => {
      const user = await signedIn(request, reply);
      if (!user) return reply;
      const values = {
        name: formText(request.body, 'name'),
        type: formText(request.body, 'type'),
        website: formText(request.body, 'website'),
      };
      const errors: NewProgramErrors = {};
      if (values.name === '') errors.name = 'Enter the program’s name.';
      else if (values.name.length > 255) errors.name = 'Enter at most 255 characters.';
      if (!isProgramType(values.type)) errors.type = 'Choose the kind of program.';
      if (values.website !== '' && !/^https?:\/\/\S+$/.test(values.website))
        errors.website = 'Enter the site’s address, like https://example.com.';
      else if (values.website.length > 2048) errors.website = 'Enter at most 2048 characters.';
      if (Object.keys(errors).length > 0 || !isProgramType(values.type))
        return sendPage(
          reply,
          422,
          <NewProgramPage user={user} csrf={reply.generateCsrf()} values={values} errors={errors} />,
        );
      const program = await createConsoleProgram(
        pageDeps(request),
        user,
        {
          name: values.name,
          type: values.type,
          ...(values.website ? { website: values.website } : {}),
        },
        request.ip,
      );
      if (!program) return seeOther(reply, `${CONSOLE_PATH}/programs`);
      return seeOther(reply, `${CONSOLE_PATH}/programs/${program.public_id}`);
    },
  });

  app.get<{ Params: ProgramParams }>('/programs/:program', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      const view = await getOverview(program, linkBase(request));
      return sendPage(
        reply,
        200,
        <OverviewPage user={user} csrf={reply.generateCsrf()} program={program} view={view} />,
      );
    },
  });
}
