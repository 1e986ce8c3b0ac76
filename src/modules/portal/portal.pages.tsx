import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formText, formValidator, HONEYPOT } from '../../pages/forms.tsx';
import {
  definePages,
  formRoute,
  linkBase,
  pageDeps,
  pageNotFound,
  pageRoute,
  seeOther,
  sendHtml,
  sendPage,
  setSessionCookie,
} from '../../pages/plugin.tsx';
import {
  changePassword,
  resetLinkUsable,
  resetPassword,
  type SignUpForm,
  sendPasswordReset,
  sendSignInLink,
  signIn,
  signInLinkUsable,
  signInWithLink,
  signUp,
  updateName,
} from './portal.accounts.service.ts';
import {
  createCustomLink,
  getDashboard,
  getLeadPage,
  type LeadForm,
  submitLead,
} from './portal.dashboard.service.ts';
import {
  PAYOUT_FIELDS,
  PartnerPayoutInput,
  type PayoutField,
  type PayoutForm,
  payoutInput,
  payoutProblemsInWords,
  updatePayout,
} from './portal.payout.service.ts';
import {
  currentPartner,
  getHostPortalProgram,
  getPortalProgram,
  type LeadFormField,
  type PortalProgram,
  SESSION_DAYS,
  signOut,
  waitInWords,
} from './portal.service.ts';

/**
 * The partner portal's pages, `/p/{program public id}/…`: program page, sign-up, sign-in (password
 * or one-time link), password reset, dashboard and settings. Every form carries a CSRF token;
 * handlers read the form, call one service function and render.
 */

const SESSION_COOKIE = 'vouch_portal';
type Params = { program: string };

import {
  AskLinkPage,
  PendingPage,
  ProgramPage,
  ResetPage,
  SignInPage,
  SignUpPage,
  UseLinkPage,
} from './portal.account.views.tsx';
import { DashboardPage, dashboardDocument, SettingsPage } from './portal.dashboard.views.tsx';
import { LeadsPage } from './portal.leads.views.tsx';

/**
 * Where a portal is served: at `/p/{program public id}` on any host, or at `/` on the program's
 * own `portal_host`; each finds the program of a request its way.
 */
interface Mount {
  path: string;
  find(request: FastifyRequest): Promise<PortalProgram | undefined>;
}

const byPath: Mount = {
  path: '/:program',
  find: (request) => getPortalProgram(pageDeps(request), (request.params as Params).program),
};

const byHost: Mount = {
  path: '',
  find: (request) => getHostPortalProgram(pageDeps(request), request.hostname),
};

const setSession = (request: FastifyRequest, reply: FastifyReply, portal: PortalProgram, token: string) =>
  setSessionCookie(request, reply, {
    name: SESSION_COOKIE,
    value: token,
    path: portal.base || '/',
    days: SESSION_DAYS,
  });

const clearSession = (reply: FastifyReply, portal: PortalProgram) =>
  reply.clearCookie(SESSION_COOKIE, { path: portal.base || '/' });

const sessionToken = (request: FastifyRequest) => request.cookies[SESSION_COOKIE];

/** The signed-in partner; otherwise the browser is sent to the sign-in page. */
async function signedIn(
  request: FastifyRequest<{ Params: Params }>,
  reply: FastifyReply,
  portal: PortalProgram,
) {
  const partner = await currentPartner(portal, sessionToken(request));
  if (!partner) {
    if (sessionToken(request)) clearSession(reply, portal);
    seeOther(reply, `${portal.base}/sign-in`);
  }
  return partner;
}

/** A form field as typed (not trimmed): passwords. */
const rawText = (body: unknown, name: string) => {
  const value =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
};

/** Every value of a repeated form field (ticked checkboxes), trimmed. */
const formList = (body: unknown, name: string): string[] => {
  const value =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  const values = Array.isArray(value) ? value : [value];
  return values
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.trim())
    .filter(Boolean);
};

const leadForm = (body: unknown, fields: readonly LeadFormField[]): LeadForm => ({
  name: formText(body, 'name'),
  email: formText(body, 'email'),
  answers: Object.fromEntries(
    fields.map((field) => {
      const name = `cfield-${field.id}`;
      return [String(field.id), field.type === 'checkbox' ? formList(body, name) : formText(body, name)];
    }),
  ),
});

/** The API's own check of payout fields (`POST/PUT /v1/partners`), for the settings form. */
const checkPayout = formValidator(PartnerPayoutInput);

/** Codes are written in upper case (the API's rule for IBAN and SWIFT/BIC); people type either. */
const upperCased: readonly PayoutField[] = ['iban', 'swift_bic'];

const payoutForm = (body: unknown): PayoutForm => ({
  method: formText(body, 'payout_method'),
  details: Object.fromEntries(
    PAYOUT_FIELDS.map((field) => {
      const value = formText(body, `payout_${field}`);
      return [field, upperCased.includes(field) ? value.toUpperCase() : value];
    }),
  ),
});

const signUpForm = (body: unknown): SignUpForm => ({
  name: formText(body, 'name'),
  surname: formText(body, 'surname'),
  email: formText(body, 'email'),
  // Passwords are taken as typed: spaces count.
  password: rawText(body, 'password'),
  terms: formText(body, 'terms') !== '',
});

/** The partner portal's routes at `mount`. */
async function portalRoutes(app: FastifyInstance, mount: Mount) {
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
      return sendPage(
        reply,
        usable ? 200 : 410,
        <UseLinkPage
          site={portal.name}
          newLink={`${portal.base}/sign-in-link`}
          csrf={reply.generateCsrf()}
          expired={!usable}
        />,
      );
    },
  });

  app.post<{ Params: TokenParams }>(`${mount.path}/link/:token`, {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const token = await signInWithLink(portal, request.params.token);
      if (!token)
        return sendPage(
          reply,
          410,
          <UseLinkPage
            site={portal.name}
            newLink={`${portal.base}/sign-in-link`}
            csrf={reply.generateCsrf()}
            expired
          />,
        );
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

  app.get<{ Params: Params }>(`${mount.path}/dashboard`, {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const partner = await signedIn(request, reply, portal);
      if (!partner) return reply;
      const csrf = reply.generateCsrf();
      if (partner.pending)
        return sendPage(reply, 200, <PendingPage portal={portal} partner={partner} csrf={csrf} />);
      const view = await getDashboard(portal, partner);
      return sendHtml(reply, 200, dashboardDocument({ portal, partner, view, csrf }));
    },
  });

  app.get<{ Params: Params }>(`${mount.path}/settings`, {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const partner = await signedIn(request, reply, portal);
      if (!partner) return reply;
      const { payout_method: chosen } = (request.query ?? {}) as { payout_method?: unknown };
      return sendPage(
        reply,
        200,
        <SettingsPage
          portal={portal}
          partner={partner}
          csrf={reply.generateCsrf()}
          payoutMethod={typeof chosen === 'string' ? chosen : undefined}
        />,
      );
    },
  });

  app.post<{ Params: Params }>(`${mount.path}/settings/name`, {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const partner = await signedIn(request, reply, portal);
      if (!partner) return reply;
      const errors = await updateName(portal, partner, {
        name: formText(request.body, 'name'),
        surname: formText(request.body, 'surname'),
      });
      const now = (await currentPartner(portal, sessionToken(request))) ?? partner;
      const props = errors ? { nameErrors: errors } : { saved: 'name' as const };
      return sendPage(
        reply,
        errors ? 422 : 200,
        <SettingsPage portal={portal} partner={now} csrf={reply.generateCsrf()} {...props} />,
      );
    },
  });

  app.post<{ Params: Params }>(`${mount.path}/settings/payout`, {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const partner = await signedIn(request, reply, portal);
      if (!partner) return reply;
      const values = payoutForm(request.body);
      const input = payoutInput(values);
      const schemaProblems = checkPayout(input);
      const errors =
        values.method === ''
          ? { payout_method: 'Choose how you want to be paid.' }
          : schemaProblems
            ? payoutProblemsInWords(schemaProblems)
            : await updatePayout(portal, partner, input);
      const now = (await currentPartner(portal, sessionToken(request))) ?? partner;
      const props = errors ? { payoutErrors: errors, payoutValues: values } : { saved: 'payout' as const };
      return sendPage(
        reply,
        errors ? 422 : 200,
        <SettingsPage portal={portal} partner={now} csrf={reply.generateCsrf()} {...props} />,
      );
    },
  });

  app.post<{ Params: Params }>(`${mount.path}/settings/password`, {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const partner = await signedIn(request, reply, portal);
      if (!partner) return reply;
      const outcome = await changePassword(portal, partner, {
        current: rawText(request.body, 'current'),
        password: rawText(request.body, 'password'),
      });
      if (outcome.kind === 'changed') {
        setSession(request, reply, portal, outcome.token);
        const now = (await currentPartner(portal, outcome.token)) ?? partner;
        return sendPage(
          reply,
          200,
          <SettingsPage portal={portal} partner={now} csrf={reply.generateCsrf()} saved="password" />,
        );
      }
      const problem = outcome.kind === 'invalid' ? outcome.error : 'The password could not be changed.';
      return sendPage(
        reply,
        422,
        <SettingsPage
          portal={portal}
          partner={partner}
          csrf={reply.generateCsrf()}
          passwordProblem={problem}
        />,
      );
    },
  });
  /** The lead form page: signed in, approved, and only with `leads_page_enabled`. */
  async function leadsPartner(request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) {
    const portal = await portalOf(request);
    if (!portal.leadsPage) throw pageNotFound();
    const partner = await signedIn(request, reply, portal);
    if (partner?.pending) {
      seeOther(reply, `${portal.base}/dashboard`);
      return undefined;
    }
    return partner ? { portal, partner } : undefined;
  }

  app.get<{ Params: Params }>(`${mount.path}/leads`, {
    ...page,
    handler: async (request, reply) => {
      const found = await leadsPartner(request, reply);
      if (!found) return reply;
      const view = await getLeadPage(found.portal, found.partner);
      return sendPage(
        reply,
        200,
        <LeadsPage portal={found.portal} view={view} csrf={reply.generateCsrf()} />,
      );
    },
  });

  app.post<{ Params: Params }>(`${mount.path}/leads`, {
    ...form,
    handler: async (request, reply) => {
      const found = await leadsPartner(request, reply);
      if (!found) return reply;
      const before = await getLeadPage(found.portal, found.partner);
      const values = leadForm(request.body, before.fields);
      const outcome = await submitLead(found.portal, found.partner, values);
      const view = outcome.kind === 'submitted' ? await getLeadPage(found.portal, found.partner) : before;
      const csrf = reply.generateCsrf();
      if (outcome.kind === 'invalid')
        return sendPage(
          reply,
          422,
          <LeadsPage portal={found.portal} view={view} csrf={csrf} values={values} errors={outcome.errors} />,
        );
      if (outcome.kind === 'disabled')
        return sendPage(
          reply,
          403,
          <LeadsPage portal={found.portal} view={{ ...view, enabled: false }} csrf={csrf} />,
        );
      return sendPage(reply, 200, <LeadsPage portal={found.portal} view={view} csrf={csrf} submitted />);
    },
  });
  app.post<{ Params: Params }>(`${mount.path}/links`, {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      if (!portal.customLinks) throw pageNotFound();
      const partner = await signedIn(request, reply, portal);
      if (!partner) return reply;
      if (partner.pending) return seeOther(reply, `${portal.base}/dashboard`);
      const key = formText(request.body, 'key');
      const problem = await createCustomLink(portal, partner, key);
      if (!problem) return seeOther(reply, `${portal.base}/dashboard`);
      const view = await getDashboard(portal, partner);
      return sendPage(
        reply,
        422,
        <DashboardPage
          portal={portal}
          partner={partner}
          view={view}
          csrf={reply.generateCsrf()}
          linkKey={key.slice(0, 255)}
          linkError={problem}
        />,
      );
    },
  });
}

/** `/p/{program public id}/…`: the partner portal. */
export const partnerPortalPages = definePages('/p', (app) => portalRoutes(app, byPath));

/** `/…` on a program's own `portal_host`: the same portal (any other host: nothing here). */
export const hostPortalPages = definePages('', (app) => portalRoutes(app, byHost), {
  servedOn: async (request) => (await byHost.find(request)) !== undefined,
});
