import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CopyField, CsrfField, Field, formText } from '../../pages/forms.tsx';
import { Layout } from '../../pages/layout.tsx';
import {
  definePages,
  formRoute,
  linkBase,
  pageDeps,
  pageNotFound,
  pageRoute,
  seeOther,
  sendPage,
  setSessionCookie,
} from '../../pages/plugin.tsx';
import {
  type CustomerPortalProgram,
  currentCustomer,
  customerSignInLinkUsable,
  getCustomerHome,
  getCustomerPortalProgram,
  noteCustomerVisit,
  SESSION_DAYS,
  sendCustomerSignInLink,
  signInCustomerWithLink,
  signOutCustomer,
} from './customer-portal.service.ts';
import { sendUseLinkPage, visitOf } from './portal.requests.pages.tsx';
import { moneyInWords } from './portal.service.ts';

/**
 * The refer-a-friend customer portal's pages, `/c/{program public id}/…`: the program page (the
 * offer in words), sign-in by a one-time e-mailed link, and the customer's own page.
 */

const SESSION_COOKIE = 'vouch_customer';
type Params = { program: string };
type Home = Awaited<ReturnType<typeof getCustomerHome>>;

const base = (portal: CustomerPortalProgram) => `/c/${portal.publicId}`;

function SignOut(props: { portal: CustomerPortalProgram; csrf: string }) {
  return (
    <nav class="portal" aria-label="Account">
      <form method="post" action={`${base(props.portal)}/sign-out`}>
        <CsrfField token={props.csrf} />
        <button type="submit" class="secondary">
          Sign out
        </button>
      </form>
    </nav>
  );
}

function OfferPage(props: { portal: CustomerPortalProgram }) {
  const { portal } = props;
  return (
    <Layout title={`Refer a friend to ${portal.name}`} brand={portal.brand}>
      <div class="card">
        <h1>Refer a friend to {portal.name}</h1>
        <p class="lead">{portal.offer ?? `Share ${portal.name} with your friends.`}</p>
        <p>Sign in with your e-mail address to get your referral link and see your rewards.</p>
        <p class="actions">
          <a class="button" href={`${base(portal)}/sign-in`}>
            Get my referral link
          </a>
        </p>
      </div>
    </Layout>
  );
}

function SignInPage(props: { portal: CustomerPortalProgram; csrf: string; sent?: boolean; info?: string }) {
  const { portal } = props;
  return (
    <Layout title="Sign in" brand={portal.brand}>
      <div class="card">
        <h1>Your {portal.name} referrals</h1>
        {props.info ? (
          <p class="success" role="status">
            {props.info}
          </p>
        ) : null}
        {props.sent ? (
          <p class="success" role="status">
            If this address belongs to a customer of {portal.name}, we sent it a sign-in link. It works once,
            for 15 minutes.
          </p>
        ) : (
          <form method="post" action={`${base(portal)}/sign-in`} novalidate>
            <p class="lead">
              Enter the e-mail address you use with {portal.name}: we will send you a sign-in link.
            </p>
            <CsrfField token={props.csrf} />
            <Field name="email" type="email" label="E-mail address" autocomplete="email" required />
            <button type="submit">Send me a sign-in link</button>
          </form>
        )}
      </div>
    </Layout>
  );
}

function HomePage(props: { portal: CustomerPortalProgram; home: Home; csrf: string }) {
  const { portal, home } = props;
  return (
    <Layout
      title="Your referrals"
      brand={portal.brand}
      copyScript
      nav={<SignOut portal={portal} csrf={props.csrf} />}
    >
      <h1>Your referrals{home.name ? `, ${home.name}` : ''}</h1>
      <section class="card" aria-labelledby="link-heading">
        <h2 id="link-heading">Your referral link</h2>
        {portal.offer ? <p class="muted">{portal.offer}</p> : null}
        <CopyField id="referral-link" url={home.link} label="Share this link with your friends" />
      </section>
      <section class="card" aria-labelledby="friends-heading">
        <h2 id="friends-heading">Friends</h2>
        <dl class="figures">
          <div>
            <dt>Joined</dt>
            <dd>{home.signups}</dd>
          </div>
          <div>
            <dt>Bought</dt>
            <dd>{home.bought}</dd>
          </div>
        </dl>
        {home.friends.length === 0 ? (
          <p class="muted">No friends have joined yet. Share your link to invite the first.</p>
        ) : (
          <div class="scroll">
            <table>
              <caption>Friends who joined most recently</caption>
              <thead>
                <tr>
                  <th scope="col">Friend</th>
                  <th scope="col">Joined</th>
                </tr>
              </thead>
              <tbody>
                {home.friends.map((friend, i) => (
                  <tr key={i}>
                    <td>{friend.name}</td>
                    <td>{friend.since}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section class="card" aria-labelledby="rewards-heading">
        <h2 id="rewards-heading">Your rewards</h2>
        {home.balance.length === 0 && home.otherRewards.length === 0 ? (
          <p class="muted">No rewards yet: you earn them when your friends buy.</p>
        ) : (
          <dl class="figures">
            {home.balance.map((entry) => (
              <div key={entry.currency}>
                <dt>Balance in {entry.currency}</dt>
                <dd>{moneyInWords(entry.amount, entry.currency)}</dd>
              </div>
            ))}
            {home.otherRewards.map((reward, i) => (
              <div key={`other-${i}`}>
                <dt>{reward.day}</dt>
                <dd>
                  {reward.value} {reward.units}
                </dd>
              </div>
            ))}
          </dl>
        )}
      </section>
    </Layout>
  );
}

async function portalOf(request: FastifyRequest<{ Params: Params }>) {
  const portal = await getCustomerPortalProgram(pageDeps(request), request.params.program);
  if (!portal) throw pageNotFound();
  return portal;
}

const sessionToken = (request: FastifyRequest) => request.cookies[SESSION_COOKIE];
const clearSession = (reply: FastifyReply, portal: CustomerPortalProgram) =>
  reply.clearCookie(SESSION_COOKIE, { path: base(portal) });

/** `/c/{program public id}/…`: the refer-a-friend customer portal. */
export const customerPortalPages = definePages('/c', async (app: FastifyInstance) => {
  const page = pageRoute;
  const form = formRoute(app);

  app.get<{ Params: Params }>('/:program', {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      if (!portal.programPage) return seeOther(reply, `${base(portal)}/sign-in`);
      return sendPage(reply, 200, <OfferPage portal={portal} />);
    },
  });

  app.get<{ Params: Params }>('/:program/sign-in', {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      if (await currentCustomer(portal, sessionToken(request)))
        return seeOther(reply, `${base(portal)}/home`);
      return sendPage(reply, 200, <SignInPage portal={portal} csrf={reply.generateCsrf()} />);
    },
  });

  app.post<{ Params: Params }>('/:program/sign-in', {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      await sendCustomerSignInLink(portal, formText(request.body, 'email'), linkBase(request));
      return sendPage(reply, 200, <SignInPage portal={portal} csrf={reply.generateCsrf()} sent />);
    },
  });

  type TokenParams = Params & { token: string };
  app.get<{ Params: TokenParams }>('/:program/link/:token', {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const usable = await customerSignInLinkUsable(portal, request.params.token);
      return sendUseLinkPage(reply, { site: portal.brand, newLink: `${base(portal)}/sign-in`, usable });
    },
  });

  app.post<{ Params: TokenParams }>('/:program/link/:token', {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const token = await signInCustomerWithLink(portal, request.params.token);
      if (!token)
        return sendUseLinkPage(reply, {
          site: portal.brand,
          newLink: `${base(portal)}/sign-in`,
          usable: false,
        });
      setSessionCookie(request, reply, {
        name: SESSION_COOKIE,
        value: token,
        path: base(portal),
        days: SESSION_DAYS,
      });
      return seeOther(reply, `${base(portal)}/home`);
    },
  });

  app.get<{ Params: Params }>('/:program/home', {
    ...page,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      const customer = await currentCustomer(portal, sessionToken(request));
      if (!customer) {
        if (sessionToken(request)) clearSession(reply, portal);
        return seeOther(reply, `${base(portal)}/sign-in`);
      }
      await noteCustomerVisit(portal, customer, visitOf(request));
      const home = await getCustomerHome(portal, customer);
      return sendPage(reply, 200, <HomePage portal={portal} home={home} csrf={reply.generateCsrf()} />);
    },
  });

  app.post<{ Params: Params }>('/:program/sign-out', {
    ...form,
    handler: async (request, reply) => {
      const portal = await portalOf(request);
      await signOutCustomer(portal, sessionToken(request));
      clearSession(reply, portal);
      return sendPage(
        reply,
        200,
        <SignInPage portal={portal} csrf={reply.generateCsrf()} info="You are signed out." />,
      );
    },
  });
});
