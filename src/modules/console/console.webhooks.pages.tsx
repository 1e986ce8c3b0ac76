import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formParser, formText } from '../../pages/forms.tsx';
import { formRoute, pageNotFound, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import type { ConsoleProgram } from './console.programs.service.ts';
import { formList, type ProgramParams, programRequest } from './console.requests.pages.tsx';
import {
  addWebhook,
  CreateWebhookBodyByType,
  changeWebhook,
  eventsOf,
  fieldErrors,
  removeWebhook,
  sendNow,
  type WebhookForm,
  webhookBody,
  webhookDetail,
  webhooksOf,
} from './console.webhooks.service.ts';
import { WebhookPage, WebhooksPage } from './console.webhooks.views.tsx';

/** `/admin/programs/{program}/webhooks…`. */

type WebhookParams = ProgramParams & { key: string };

const validators = {
  affiliate: formParser(CreateWebhookBodyByType.affiliate),
  referral: formParser(CreateWebhookBodyByType.referral),
  newsletter: formParser(CreateWebhookBodyByType.newsletter),
};

const formOf = (request: FastifyRequest): WebhookForm => ({
  name: formText(request.body, 'name'),
  url: formText(request.body, 'url'),
  active: formText(request.body, 'active') !== '',
  events: formList(request.body, 'events'),
});

/** The form checked as `POST /v1/webhooks` checks its body: the typed body, or the field errors. */
function parsed(program: ConsoleProgram, form: WebhookForm) {
  const outcome = validators[program.type](webhookBody(form));
  return 'problems' in outcome ? { errors: fieldErrors(outcome.problems) } : { body: outcome.body };
}

const doneText: Record<string, string | undefined> = {
  added: 'The webhook was added.',
  saved: 'The webhook was saved.',
  deleted: 'The webhook was deleted.',
};

export async function consoleWebhookRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  app.get<{ Params: ProgramParams; Querystring: { done?: string } }>('/programs/:program/webhooks', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      return sendPage(
        reply,
        200,
        <WebhooksPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          webhooks={await webhooksOf(program)}
          events={eventsOf(program)}
          done={doneText[request.query.done ?? '']}
        />,
      );
    },
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/webhooks', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { write: true });
      if (!signed) return reply;
      const { user, program } = signed;
      const values = formOf(request);
      const checked = parsed(program, values);
      const outcome =
        'errors' in checked
          ? { kind: 'invalid' as const, errors: checked.errors }
          : await addWebhook(program, checked.body);
      if (outcome.kind === 'done')
        return seeOther(reply, `${program.base}/webhooks/${encodeURIComponent(outcome.key)}?done=added`);
      return sendPage(
        reply,
        422,
        <WebhooksPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          webhooks={await webhooksOf(program)}
          events={eventsOf(program)}
          values={values}
          errors={outcome.errors}
        />,
      );
    },
  });

  const detailPage = async (
    request: FastifyRequest<{ Params: WebhookParams }>,
    program: ConsoleProgram,
    extra: {
      values?: WebhookForm;
      errors?: Record<string, string>;
      done?: string;
      sent?: { delivered: boolean; text: string };
    },
  ) => {
    const detail = await webhookDetail(program, request.params.key);
    if (!detail) throw pageNotFound();
    return { detail, events: eventsOf(program), ...extra };
  };

  app.get<{ Params: WebhookParams; Querystring: { done?: string } }>('/programs/:program/webhooks/:key', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      const done = doneText[request.query.done ?? ''];
      const view = await detailPage(request, program, done ? { done } : {});
      return sendPage(
        reply,
        200,
        <WebhookPage user={user} csrf={reply.generateCsrf()} program={program} {...view} />,
      );
    },
  });

  app.post<{ Params: WebhookParams }>('/programs/:program/webhooks/:key', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { write: true });
      if (!signed) return reply;
      const { user, program } = signed;
      const values = formOf(request);
      const checked = parsed(program, values);
      const outcome =
        'errors' in checked
          ? { kind: 'invalid' as const, errors: checked.errors }
          : await changeWebhook(program, request.params.key, checked.body);
      if (outcome.kind === 'done')
        return seeOther(reply, `${program.base}/webhooks/${encodeURIComponent(outcome.key)}?done=saved`);
      const view = await detailPage(request, program, { values, errors: outcome.errors });
      return sendPage(
        reply,
        422,
        <WebhookPage user={user} csrf={reply.generateCsrf()} program={program} {...view} />,
      );
    },
  });

  /** `Send test event` and `Redeliver`: the delivery is sent now and the page says how it went. */
  const sendAndShow =
    (deliveryOf: (request: FastifyRequest) => string | undefined) =>
    async (request: FastifyRequest<{ Params: WebhookParams }>, reply: FastifyReply) => {
      const signed = await programRequest(request, reply, { write: true });
      if (!signed) return reply;
      const { user, program } = signed;
      await detailPage(request, program, {}); // an unknown webhook is the 404 page
      const sent = await sendNow(program, request.params.key, deliveryOf(request));
      const view = await detailPage(request, program, { sent });
      return sendPage(
        reply,
        200,
        <WebhookPage user={user} csrf={reply.generateCsrf()} program={program} {...view} />,
      );
    };

  app.post<{ Params: WebhookParams }>('/programs/:program/webhooks/:key/test', {
    ...form,
    handler: sendAndShow(() => undefined),
  });

  app.post<{ Params: WebhookParams }>('/programs/:program/webhooks/:key/redeliver', {
    ...form,
    handler: sendAndShow((request) => formText(request.body, 'delivery')),
  });

  app.post<{ Params: WebhookParams }>('/programs/:program/webhooks/:key/delete', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { write: true });
      if (!signed) return reply;
      const { program } = signed;
      await detailPage(request, program, {});
      await removeWebhook(program, request.params.key);
      return seeOther(reply, `${program.base}/webhooks?done=deleted`);
    },
  });
}
