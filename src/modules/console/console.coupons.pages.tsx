import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formParser, formText } from '../../pages/forms.tsx';
import { formRoute, pageNotFound, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import { type CodeForm, CouponPage } from './console.coupon.views.tsx';
import {
  addCode,
  addCoupon,
  CreateCouponBody,
  CreatePromotionCodeBody,
  couponDetail,
  couponsPage,
  numberOrText,
  removeCode,
  setActive,
} from './console.coupons.service.ts';
import { type CouponForm, CouponsPage } from './console.coupons.views.tsx';
import { problemsByField } from './console.outcomes.service.ts';
import {
  checkWrite,
  type ProgramParams,
  pageNumber,
  programOf,
  programRequest,
  signedIn,
} from './console.requests.pages.tsx';

/** `/admin/programs/{program}/coupons…`: coupons and their promotion codes, in every program type. */

type CouponParams = ProgramParams & { uuid: string };

const couponForm = formParser(CreateCouponBody);
const codeForm = formParser(CreatePromotionCodeBody);

const doneText: Record<string, string | undefined> = {
  created: 'The coupon was created. Add a promotion code for customers to redeem it.',
  activated: 'The coupon is active: its codes can be redeemed.',
  deactivated: 'The coupon is inactive: its codes are refused.',
  'code-added': 'The promotion code was added.',
  'code-deleted': 'The promotion code was deleted.',
};

/** Only the fields filled in: an empty one is as if not sent (the API then names what is required). */
const filled = (entries: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== ''));

export async function consoleCouponRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  const couponOf = async (request: FastifyRequest<{ Params: CouponParams }>, reply: FastifyReply) => {
    const user = await signedIn(request, reply);
    if (!user) return undefined;
    const program = await programOf(request, user);
    const coupon = await couponDetail(program, request.params.uuid);
    if (!coupon) throw pageNotFound();
    return { user, program, coupon };
  };

  app.get<{ Params: ProgramParams; Querystring: { page?: string } }>('/programs/:program/coupons', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      const page = pageNumber(request.query.page);
      const list = await couponsPage(program, page);
      const csrf = reply.generateCsrf();
      return sendPage(
        reply,
        200,
        <CouponsPage user={user} csrf={csrf} program={program} list={list} page={page} />,
      );
    },
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/coupons', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { write: true });
      if (!signed) return reply;
      const { user, program } = signed;
      const values: CouponForm = {
        name: formText(request.body, 'name'),
        uuid_code: formText(request.body, 'uuid_code'),
        coupon_discount_type: formText(request.body, 'coupon_discount_type'),
        coupon_discount_amount: formText(request.body, 'coupon_discount_amount'),
        coupon_duration_type: formText(request.body, 'coupon_duration_type'),
        coupon_duration_value: formText(request.body, 'coupon_duration_value'),
      };
      // Checked by the schema of `POST /v1/coupons`, then by the service.
      const parsed = couponForm(
        filled({ ...values, coupon_duration_value: numberOrText(values.coupon_duration_value) }),
      );
      const outcome =
        'problems' in parsed
          ? { kind: 'invalid' as const, errors: problemsByField(parsed.problems) }
          : await addCoupon(program, parsed.body);
      if (outcome.kind === 'done')
        return seeOther(reply, `${program.base}/coupons/${encodeURIComponent(outcome.value)}?done=created`);
      const list = await couponsPage(program, 1);
      return sendPage(
        reply,
        422,
        <CouponsPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          list={list}
          page={1}
          values={values}
          errors={outcome.errors}
        />,
      );
    },
  });

  app.get<{ Params: CouponParams; Querystring: { done?: string } }>('/programs/:program/coupons/:uuid', {
    ...pageRoute,
    handler: async (request, reply) => {
      const at = await couponOf(request, reply);
      if (!at) return reply;
      const done = doneText[request.query.done ?? ''];
      return sendPage(reply, 200, <CouponPage {...at} csrf={reply.generateCsrf()} done={done} />);
    },
  });

  app.post<{ Params: CouponParams }>('/programs/:program/coupons/:uuid/active', {
    ...form,
    handler: async (request, reply) => {
      const at = await couponOf(request, reply);
      if (!at) return reply;
      checkWrite(at.program);
      const active = formText(request.body, 'active') === 'yes';
      await setActive(at.program, at.coupon, active);
      const back = `${at.program.base}/coupons/${encodeURIComponent(at.coupon.uuid)}`;
      return seeOther(reply, `${back}?done=${active ? 'activated' : 'deactivated'}`);
    },
  });

  app.post<{ Params: CouponParams }>('/programs/:program/coupons/:uuid/codes', {
    ...form,
    handler: async (request, reply) => {
      const at = await couponOf(request, reply);
      if (!at) return reply;
      checkWrite(at.program);
      const values: CodeForm = {
        code: formText(request.body, 'code'),
        expiration_date_value: formText(request.body, 'expiration_date_value'),
        redemption_times_value: formText(request.body, 'redemption_times_value'),
      };
      // Checked by the schema of `POST /v1/promotion-codes`, then by the service.
      const parsed = codeForm({
        coupon_uuid: at.coupon.uuid,
        ...filled({ code: values.code }),
        ...(values.expiration_date_value
          ? { expiration_date_status: true, expiration_date_value: values.expiration_date_value }
          : {}),
        ...(values.redemption_times_value
          ? {
              redemption_times_status: true,
              redemption_times_value: numberOrText(values.redemption_times_value),
            }
          : {}),
      });
      const outcome =
        'problems' in parsed
          ? { kind: 'invalid' as const, errors: problemsByField(parsed.problems) }
          : await addCode(at.program, parsed.body);
      const back = `${at.program.base}/coupons/${encodeURIComponent(at.coupon.uuid)}`;
      if (outcome.kind === 'done') return seeOther(reply, `${back}?done=code-added`);
      return sendPage(
        reply,
        422,
        <CouponPage {...at} csrf={reply.generateCsrf()} values={values} errors={outcome.errors} />,
      );
    },
  });

  app.post<{ Params: CouponParams }>('/programs/:program/coupons/:uuid/codes/delete', {
    ...form,
    handler: async (request, reply) => {
      const at = await couponOf(request, reply);
      if (!at) return reply;
      checkWrite(at.program);
      if (!(await removeCode(at.program, at.coupon, formText(request.body, 'code')))) throw pageNotFound();
      const back = `${at.program.base}/coupons/${encodeURIComponent(at.coupon.uuid)}`;
      return seeOther(reply, `${back}?done=code-deleted`);
    },
  });
}
