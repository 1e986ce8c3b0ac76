import type { FastifyInstance } from 'fastify';
import { formText } from '../../pages/forms.tsx';
import {
  formRoute,
  linkBase,
  pageDeps,
  pageNotFound,
  pageRoute,
  seeOther,
  sendPage,
} from '../../pages/plugin.tsx';
import { ForgotPage, ResetPage, SetupPage, SignInPage } from './console.account.views.tsx';
import { currentUser, setUp, setupOpen, signIn, signOut, waitInWords } from './console.accounts.service.ts';
import { CONSOLE_PATH, clearSession, sessionToken, setSession } from './console.requests.pages.tsx';
import { resetLinkUsable, resetPassword, sendPasswordReset } from './console.reset.service.ts';

/** A password as typed (not trimmed), or empty. */
export const rawText = (body: unknown, name: string) => {
  if (typeof body !== 'object' || body === null) return '';
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
};

/** `/admin`, set-up, sign-in and sign-out. */
export async function consoleAccountRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  app.get('/', {
    ...pageRoute,
    handler: async (request, reply) => {
      const deps = pageDeps(request);
      if (await currentUser(deps, sessionToken(request))) return seeOther(reply, `${CONSOLE_PATH}/programs`);
      if (await setupOpen(deps)) return seeOther(reply, `${CONSOLE_PATH}/setup`);
      return seeOther(reply, `${CONSOLE_PATH}/sign-in`);
    },
  });

  app.get('/setup', {
    ...pageRoute,
    handler: async (request, reply) => {
      if (!(await setupOpen(pageDeps(request)))) throw pageNotFound();
      return sendPage(reply, 200, <SetupPage csrf={reply.generateCsrf()} />);
    },
  });

  app.post('/setup', {
    ...form,
    handler: async (request, reply) => {
      const values = {
        token: rawText(request.body, 'token'),
        email: formText(request.body, 'email'),
        password: rawText(request.body, 'password'),
      };
      const outcome = await setUp(pageDeps(request), values);
      if (outcome.kind === 'closed') throw pageNotFound();
      if (outcome.kind === 'invalid')
        return sendPage(
          reply,
          422,
          <SetupPage csrf={reply.generateCsrf()} values={{ email: values.email }} errors={outcome.errors} />,
        );
      setSession(request, reply, outcome.token);
      return seeOther(reply, `${CONSOLE_PATH}/programs`);
    },
  });

  app.get('/sign-in', {
    ...pageRoute,
    handler: async (request, reply) => {
      if (await currentUser(pageDeps(request), sessionToken(request)))
        return seeOther(reply, `${CONSOLE_PATH}/programs`);
      return sendPage(reply, 200, <SignInPage csrf={reply.generateCsrf()} />);
    },
  });

  app.post('/sign-in', {
    ...form,
    handler: async (request, reply) => {
      const values = { email: formText(request.body, 'email'), password: rawText(request.body, 'password') };
      const outcome = await signIn(pageDeps(request), values, request.ip);
      if (outcome.kind === 'signed_in') {
        setSession(request, reply, outcome.token);
        return seeOther(reply, `${CONSOLE_PATH}/programs`);
      }
      const props = outcome.kind === 'wait' ? { wait: waitInWords(outcome.seconds) } : { wrong: true };
      return sendPage(
        reply,
        outcome.kind === 'wait' ? 429 : 422,
        <SignInPage csrf={reply.generateCsrf()} values={{ email: values.email }} {...props} />,
      );
    },
  });

  app.get<{ Querystring: { sent?: string } }>('/forgot', {
    ...pageRoute,
    handler: async (request, reply) =>
      sendPage(reply, 200, <ForgotPage csrf={reply.generateCsrf()} sent={request.query.sent === '1'} />),
  });

  app.post('/forgot', {
    ...form,
    handler: async (request, reply) => {
      await sendPasswordReset(pageDeps(request), formText(request.body, 'email'), linkBase(request));
      // The same answer for every address: the page never tells who has an account.
      return seeOther(reply, `${CONSOLE_PATH}/forgot?sent=1`);
    },
  });

  app.get<{ Params: { token: string } }>('/reset/:token', {
    ...pageRoute,
    handler: async (request, reply) => {
      const usable = await resetLinkUsable(pageDeps(request), request.params.token);
      return sendPage(reply, usable ? 200 : 410, <ResetPage csrf={reply.generateCsrf()} usable={usable} />);
    },
  });

  app.post<{ Params: { token: string } }>('/reset/:token', {
    ...form,
    handler: async (request, reply) => {
      const outcome = await resetPassword(
        pageDeps(request),
        request.params.token,
        rawText(request.body, 'password'),
      );
      if (outcome.kind === 'signed_in') {
        setSession(request, reply, outcome.token);
        return seeOther(reply, `${CONSOLE_PATH}/programs`);
      }
      const usable = outcome.kind === 'invalid';
      return sendPage(
        reply,
        usable ? 422 : 410,
        <ResetPage csrf={reply.generateCsrf()} usable={usable} error={usable ? outcome.error : undefined} />,
      );
    },
  });

  app.post('/sign-out', {
    ...form,
    handler: async (request, reply) => {
      await signOut(pageDeps(request), sessionToken(request));
      clearSession(reply);
      return seeOther(reply, `${CONSOLE_PATH}/sign-in`);
    },
  });
}
