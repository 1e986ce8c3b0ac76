import type { FastifyInstance } from 'fastify';
import {
  Checkbox,
  CsrfField,
  Field,
  FieldsToCorrect,
  formText,
  HONEYPOT,
  Honeypot,
} from '../../pages/forms.tsx';
import { Layout } from '../../pages/layout.tsx';
import {
  definePages,
  formRoute,
  linkBase,
  pageDeps,
  pageNotFound,
  pageRoute,
  sendHtml,
  sendPage,
} from '../../pages/plugin.tsx';
import type { Brand } from './subscribers.pages.service.ts';
import { getPortalPage, getSharePage, signUpFromSharePage } from './subscribers.pages.service.ts';
import { CopyLink, portalDocument } from './subscribers.portal.views.tsx';

/** The reader's side of a newsletter program: the share page and the subscriber portal. */

type ShareErrors = { name?: string; email?: string; consent?: string };

interface ShareParams {
  program: string;
  code: string;
}

function SharePage(props: {
  programName: string;
  brand: Brand;
  sharer: string;
  csrf: string;
  values?: { name: string; email: string; consent: boolean };
  errors?: ShareErrors;
  taken?: boolean;
}) {
  const errors = props.errors ?? {};
  return (
    <Layout title={`Subscribe to ${props.programName}`} brand={props.brand}>
      <div class="card">
        <h1>Subscribe to {props.programName}</h1>
        <p class="lead">
          {props.sharer} invited you to read {props.programName}. Sign up below: it is free.
        </p>
        {props.taken ? (
          <p class="notice" role="alert">
            This e-mail address is already subscribed to {props.programName}. Check your inbox for our
            e-mails, or use another address.
          </p>
        ) : null}
        <FieldsToCorrect errors={errors} />
        <form method="post" novalidate>
          <CsrfField token={props.csrf} />
          <Honeypot />
          <Field
            name="name"
            label="First name (optional)"
            autocomplete="given-name"
            value={props.values?.name}
            error={errors.name}
          />
          <Field
            name="email"
            type="email"
            label="E-mail address"
            autocomplete="email"
            required
            value={props.values?.email}
            error={errors.email}
          />
          <Checkbox
            name="consent"
            label={`Yes, send me ${props.programName}. I agree to its terms.`}
            checked={props.values?.consent}
            error={errors.consent}
          />
          <button type="submit">Subscribe</button>
        </form>
      </div>
    </Layout>
  );
}

function ThanksPage(props: { programName: string; brand: Brand; name: string | null; shareLink: string }) {
  return (
    <Layout title="You are subscribed" brand={props.brand} copyScript>
      <div class="card">
        <h1>You are subscribed{props.name ? `, ${props.name}` : ''}!</h1>
        <p class="success" role="status">
          Thank you for subscribing to {props.programName}. We sent you an e-mail with a link to your referral
          portal.
        </p>
        {props.shareLink ? (
          <>
            <p>Know someone who would like it too? Share your own link and earn rewards:</p>
            <CopyLink url={props.shareLink} label="Your share link" />
          </>
        ) : null}
      </div>
    </Layout>
  );
}

/** `/share/{program public id}/{subscriber code}`: the sign-up form that refers its reader. */
export const sharePages = definePages('/share', async (app: FastifyInstance) => {
  app.get<{ Params: ShareParams }>('/:program/:code', {
    ...pageRoute,
    handler: async (request, reply) => {
      const view = await getSharePage(pageDeps(request), request.params.program, request.params.code);
      if (!view) throw pageNotFound();
      const csrf = reply.generateCsrf();
      return sendPage(
        reply,
        200,
        <SharePage
          programName={view.programName}
          brand={view.brand}
          sharer={view.sharerFirstName}
          csrf={csrf}
        />,
      );
    },
  });

  app.post<{ Params: ShareParams }>('/:program/:code', {
    ...formRoute(app),
    handler: async (request, reply) => {
      const { program, code } = request.params;
      const deps = pageDeps(request);
      const view = await getSharePage(deps, program, code);
      if (!view) throw pageNotFound();
      const values = {
        name: formText(request.body, 'name'),
        email: formText(request.body, 'email'),
        consent: formText(request.body, 'consent') !== '',
      };
      // A bot filled the field people never see: it is thanked, and nothing is stored.
      if (formText(request.body, HONEYPOT) !== '')
        return sendPage(
          reply,
          200,
          <ThanksPage programName={view.programName} brand={view.brand} name={null} shareLink="" />,
        );
      const outcome = await signUpFromSharePage(deps, program, code, values, linkBase(request));
      if (outcome.kind === 'not_found') throw pageNotFound();
      if (outcome.kind === 'subscribed')
        return sendPage(
          reply,
          200,
          <ThanksPage
            programName={view.programName}
            brand={view.brand}
            name={outcome.name}
            shareLink={outcome.shareLink}
          />,
        );
      const form = (
        <SharePage
          programName={view.programName}
          brand={view.brand}
          sharer={view.sharerFirstName}
          csrf={reply.generateCsrf()}
          values={values}
          {...(outcome.kind === 'invalid' ? { errors: outcome.errors } : { taken: true })}
        />
      );
      return sendPage(reply, 422, form);
    },
  });
});

/** `/portal/{program public id}/{subscriber code}/{secret}`: the subscriber's referrals and rewards. */
export const portalPages = definePages(
  '/portal',
  async (app: FastifyInstance) => {
    app.get<{ Params: ShareParams & { secret: string } }>('/:program/:code/:secret', {
      ...pageRoute,
      handler: async (request, reply) => {
        const { program, code, secret } = request.params;
        const view = await getPortalPage(pageDeps(request), program, code, secret, linkBase(request));
        if (!view) throw pageNotFound();
        return sendHtml(reply, 200, portalDocument(view));
      },
    });
  },
  { forms: false },
);
