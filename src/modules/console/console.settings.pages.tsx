import type { FastifyInstance } from 'fastify';
import { formParser, formText } from '../../pages/forms.tsx';
import { formRoute, linkBase, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import { fileForms, formFile } from '../../pages/uploads.ts';
import type { ConsoleProgram } from './console.programs.service.ts';
import { type ProgramParams, programRequest } from './console.requests.pages.tsx';
import {
  bodyOf,
  currentLogo,
  currentValues,
  deleteLogo,
  errorsOf,
  LOGO_MAX_BYTES,
  portalLinks,
  saveLogo,
  saveSettings,
  settingGroups,
  UpdateProgramBodyByType,
} from './console.settings.service.ts';
import { SettingsPage } from './console.settings.views.tsx';

/** `/admin/programs/{program}/settings`. */

const validators = {
  affiliate: formParser(UpdateProgramBodyByType.affiliate),
  referral: formParser(UpdateProgramBodyByType.referral),
  newsletter: formParser(UpdateProgramBodyByType.newsletter),
};

export async function consoleSettingsRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  const page = async (program: ConsoleProgram, links: { baseUrl: string }) => ({
    groups: settingGroups(program.type),
    links: await portalLinks(program, links),
    logo: await currentLogo(program),
  });

  app.get<{ Params: ProgramParams; Querystring: { saved?: string } }>('/programs/:program/settings', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      const links = linkBase(request);
      return sendPage(
        reply,
        200,
        <SettingsPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          values={await currentValues(program, links)}
          saved={request.query.saved === '1'}
          {...(await page(program, links))}
        />,
      );
    },
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/settings', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { write: true });
      if (!signed) return reply;
      const { user, program } = signed;
      const { body, values } = bodyOf(program.type, (path) => formText(request.body, path));
      // Checked by the schema of `PUT /v1/program` for the program's type.
      const parsed = validators[program.type](body);
      const outcome =
        'problems' in parsed
          ? { kind: 'invalid' as const, errors: errorsOf(parsed.problems) }
          : await saveSettings(program, parsed.body, linkBase(request));
      if (outcome.kind === 'saved') return seeOther(reply, `${program.base}/settings?saved=1`);
      const links = linkBase(request);
      return sendPage(
        reply,
        422,
        <SettingsPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          values={values}
          errors={outcome.errors}
          {...(await page(program, links))}
        />,
      );
    },
  });

  // The logo file: a multipart form of its own, read only by this route (one file, a little above
  // the limit, so that a file too large is told so rather than cut).
  await app.register(async (scope) => {
    await fileForms(scope, { maxBytes: LOGO_MAX_BYTES });
    scope.post<{ Params: ProgramParams }>('/programs/:program/settings/logo', {
      ...formRoute(scope),
      handler: async (request, reply) => {
        const signed = await programRequest(request, reply, { write: true });
        if (!signed) return reply;
        const { user, program } = signed;
        const outcome = await saveLogo(program, formFile(request.body, 'logo'));
        if (outcome.kind === 'saved') return seeOther(reply, `${program.base}/settings?saved=1`);
        const links = linkBase(request);
        return sendPage(
          reply,
          422,
          <SettingsPage
            user={user}
            csrf={reply.generateCsrf()}
            program={program}
            values={await currentValues(program, links)}
            logoError={outcome.error}
            {...(await page(program, links))}
          />,
        );
      },
    });
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/settings/logo/remove', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { write: true });
      if (!signed) return reply;
      const { program } = signed;
      await deleteLogo(program);
      return seeOther(reply, `${program.base}/settings?saved=1`);
    },
  });
}
