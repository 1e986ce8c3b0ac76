/** A signed-in partner's pages: dashboard, settings, leads, custom links. */

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formText } from '../../pages/forms.tsx';
import { formRoute, pageNotFound, pageRoute, seeOther, sendHtml, sendPage } from '../../pages/plugin.tsx';
import { PendingPage } from './portal.account.views.tsx';
import { changePassword, updateName } from './portal.accounts.service.ts';
import { createCustomLink, getDashboard, getLeadPage, submitLead } from './portal.dashboard.service.ts';
import { DashboardPage, dashboardDocument, SettingsPage } from './portal.dashboard.views.tsx';
import { LeadsPage } from './portal.leads.views.tsx';
import { payoutInput, payoutProblemsInWords, updatePayout } from './portal.payout.service.ts';
import {
  checkPayout,
  leadForm,
  type Mount,
  type Params,
  payoutForm,
  rawText,
  sessionToken,
  setSession,
  signedIn,
} from './portal.requests.pages.tsx';
import { currentPartner } from './portal.service.ts';

export async function partnerRoutes(app: FastifyInstance, mount: Mount) {
  const page = pageRoute;
  const form = formRoute(app);
  /** The program of the request, or the 404 page. */
  const portalOf = async (request: FastifyRequest) => {
    const portal = await mount.find(request);
    if (!portal) throw pageNotFound();
    return portal;
  };
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
