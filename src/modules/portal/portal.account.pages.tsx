/** The portal's account pages: program page, sign-up, sign-in by password or link, sign-out, reset. */

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { formText, HONEYPOT } from '../../pages/forms.tsx';
import { formRoute, linkBase, pageNotFound, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import { AskLinkPage, ProgramPage, ResetPage, SignInPage, SignUpPage } from './portal.account.views.tsx';
import {
  resetLinkUsable,
  resetPassword,
  sendPasswordReset,
  sendSignInLink,
  signIn,
  signInLinkUsable,
  signInWithLink,
  signUp,
} from './portal.accounts.service.ts';
import {
  clearSession,
  type Mount,
  type Params,
  rawText,
  sendUseLinkPage,
  sessionToken,
  setSession,
  signUpForm,
} from './portal.requests.pages.tsx';
import { currentPartner, type PortalProgram, signOut, waitInWords } from './portal.service.ts';

export async function accountRoutes(app: FastifyInstance, mount: Mount) {
  const page = pageRoute;
  const form = formRoute(app);
  /** The program of the request, or the 404 page. */
  const portalOf = async (request: FastifyRequest) => {
    const portal = await mount.find(request);
    if (!portal) throw pageNotFound();
    return portal;
  };

  app.get<{ Params: Params }>(mount.path || '/', {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      if (!portal.programPage) return seeOther(reply, `${portal.base}/sign-in`);
      return sendPage(reply, 200, <ProgramPage portal={portal} />);
    },
  });

  app.get<{ Params: Params }>(`${mount.path}/sign-up`, {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      if (!portal.registration) throw pageNotFound();
      return sendPage(reply, 200, <SignUpPage portal={portal} csrf={reply.generateCsrf()} />);
    },
  });

  app.post<{ Params: Params }>(`${mount.path}/sign-up`, {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      if (!portal.registration) throw pageNotFound();
      const values = signUpForm(request.body);
      // A bot filled the field people never see: nothing is stored.
      if (formText(request.body, HONEYPOT) !== '') return seeOther(reply, `${portal.base}/sign-in`);
      const outcome = await signUp(portal, values);
      if (outcome.kind === 'signed_up') {
        setSession(request, reply, portal, outcome.token);
        return seeOther(reply, `${portal.base}/dashboard`);
      }
      const props = outcome.kind === 'invalid' ? { errors: outcome.errors } : { taken: true };
      return sendPage(
        reply,
        422,
        <SignUpPage portal={portal} csrf={reply.generateCsrf()} values={values} {...props} />,
      );
    },
  });

  app.get<{ Params: Params }>(`${mount.path}/sign-in`, {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      if (await currentPartner(portal, sessionToken(request)))
        return seeOther(reply, `${portal.base}/dashboard`);
      return sendPage(reply, 200, <SignInPage portal={portal} csrf={reply.generateCsrf()} />);
    },
  });

  app.post<{ Params: Params }>(`${mount.path}/sign-in`, {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const email = formText(request.body, 'email');
      const outcome = await signIn(
        portal,
        { email, password: rawText(request.body, 'password') },
        request.ip,
      );
      if (outcome.kind === 'signed_in') {
        setSession(request, reply, portal, outcome.token);
        return seeOther(reply, `${portal.base}/dashboard`);
      }
      const problem =
        outcome.kind === 'wait'
          ? `Too many failed sign-ins. Please try again ${waitInWords(outcome.seconds)}, or reset your password.`
          : 'The e-mail address or the password is not right.';
      const status = outcome.kind === 'wait' ? 429 : 401;
      return sendPage(
        reply,
        status,
        <SignInPage
          portal={portal}
          csrf={reply.generateCsrf()}
          email={email.slice(0, 255)}
          problem={problem}
        />,
      );
    },
  });

  app.post<{ Params: Params }>(`${mount.path}/sign-out`, {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      await signOut(portal, sessionToken(request));
      clearSession(reply, portal);
      return sendPage(
        reply,
        200,
        <SignInPage portal={portal} csrf={reply.generateCsrf()} info="You are signed out." />,
      );
    },
  });

  for (const purpose of ['sign_in', 'reset'] as const) {
    const path = purpose === 'sign_in' ? `${mount.path}/sign-in-link` : `${mount.path}/forgot`;
    const allowed = (portal: PortalProgram) => purpose === 'reset' || portal.passwordless;
    app.get<{ Params: Params }>(path, {
      ...page,
      handler: async (request, reply) => {
        const portal = await portalOf(request);
        if (!allowed(portal)) throw pageNotFound();
        return sendPage(
          reply,
          200,
          <AskLinkPage portal={portal} csrf={reply.generateCsrf()} purpose={purpose} />,
        );
      },
    });
    app.post<{ Params: Params }>(path, {
      ...form,
      handler: async (request, reply) => {
        const portal = await portalOf(request);
        if (!allowed(portal)) throw pageNotFound();
        const email = formText(request.body, 'email');
        const send = purpose === 'sign_in' ? sendSignInLink : sendPasswordReset;
        await send(portal, email, linkBase(request));
        return sendPage(
          reply,
          200,
          <AskLinkPage portal={portal} csrf={reply.generateCsrf()} purpose={purpose} sent />,
        );
      },
    });
  }

  type TokenParams = Params & { token: string };
  app.get<{ Params: TokenParams }>(`${mount.path}/link/:token`, {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const usable = await signInLinkUsable(portal, request.params.token);
      return sendUseLinkPage(reply, { site: portal.brand, newLink: `${portal.base}/sign-in-link`, usable });
    },
  });

  app.post<{ Params: TokenParams }>(`${mount.path}/link/:token`, {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const token = await signInWithLink(portal, request.params.token);
      if (!token)
        return sendUseLinkPage(reply, {
          site: portal.brand,
          newLink: `${portal.base}/sign-in-link`,
          usable: false,
        });
      setSession(request, reply, portal, token);
      return seeOther(reply, `${portal.base}/dashboard`);
    },
  });

  app.get<{ Params: TokenParams }>(`${mount.path}/reset/:token`, {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const usable = await resetLinkUsable(portal, request.params.token);
      return sendPage(
        reply,
        usable ? 200 : 410,
        <ResetPage portal={portal} csrf={reply.generateCsrf()} expired={!usable} />,
      );
    },
  });

  app.post<{ Params: TokenParams }>(`${mount.path}/reset/:token`, {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const outcome = await resetPassword(portal, request.params.token, rawText(request.body, 'password'));
      if (outcome.kind === 'changed') {
        setSession(request, reply, portal, outcome.token);
        return seeOther(reply, `${portal.base}/dashboard`);
      }
      const props = outcome.kind === 'expired' ? { expired: true } : { problem: outcome.error };
      return sendPage(
        reply,
        outcome.kind === 'expired' ? 410 : 422,
        <ResetPage portal={portal} csrf={reply.generateCsrf()} {...props} />,
      );
    },
  });
}
