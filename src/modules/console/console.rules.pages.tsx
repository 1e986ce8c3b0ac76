import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formParser, formText } from '../../pages/forms.tsx';
import { formRoute, linkBase, pageNotFound, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { problemsByField } from './console.outcomes.service.ts';
import type { ConsoleProgram } from './console.programs.service.ts';
import {
  checkWrite,
  type ProgramParams,
  programOf,
  programRequest,
  sectionShown,
  signedIn,
} from './console.requests.pages.tsx';
import {
  type CommissionRules,
  commissionRules,
  numeric,
  productBody,
  rewardsBody,
  rewardValues,
  saveRules,
} from './console.rules.service.ts';
import { CommissionRulesPage, type ProductForm, RewardsPage } from './console.rules.views.tsx';
import { UpdateProgramBodyByType } from './console.settings.service.ts';

/**
 * `/admin/programs/{program}/rewards` (refer-a-friend) and `/settings/commissions` (affiliate):
 * settings of their own shape, each form checked by `PUT /v1/program`'s schema for the type.
 */

const validators = {
  affiliate: formParser(UpdateProgramBodyByType.affiliate),
  referral: formParser(UpdateProgramBodyByType.referral),
};

/** The rules as the activity log compares them: each a text. */
const rulesText = (rules: CommissionRules) => ({
  tier2_commission: rules.tier2.type ? `${rules.tier2.value} ${rules.tier2.type}` : 'none',
  product_commissions: JSON.stringify(productBody(rules)),
});

/** Errors keyed by the form's own field names: the rest of the path after `prefix`. */
function errorsAfter(errors: Record<string, string>, prefix: RegExp, into = '') {
  const out: Record<string, string> = {};
  for (const [path, said] of Object.entries(errors)) {
    const key = path.replace(prefix, into);
    out[key] = out[key] ? `${out[key]} ${said}` : said;
  }
  return out;
}

type Signed = { user: ConsoleUser; program: ConsoleProgram };

export async function consoleRuleRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  app.get<{ Params: ProgramParams; Querystring: { saved?: string } }>('/programs/:program/rewards', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      sectionShown(program, 'rewards');
      const values = await rewardValues(program, linkBase(request));
      const saved = request.query.saved === '1';
      return sendPage(
        reply,
        200,
        <RewardsPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          values={values}
          saved={saved}
        />,
      );
    },
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/rewards', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      sectionShown(program, 'rewards');
      checkWrite(program);
      const links = linkBase(request);
      const { body, values } = rewardsBody((name) => formText(request.body, name));
      const parsed = validators.referral(body);
      const outcome =
        'problems' in parsed
          ? { kind: 'invalid' as const, errors: problemsByField(parsed.problems, 'path') }
          : await saveRules(program, parsed.body, () => rewardValues(program, links));
      if (outcome.kind === 'done') return seeOther(reply, `${program.base}/rewards?saved=1`);
      return sendPage(
        reply,
        422,
        <RewardsPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          values={values}
          errors={outcome.errors}
        />,
      );
    },
  });

  const rulesPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    { user, program }: Signed,
    status: number,
    extra: {
      tier2?: { type: string; value: string };
      product?: ProductForm;
      errors?: Record<string, string>;
    },
    done?: string,
  ) => {
    const rules = await commissionRules(program, linkBase(request));
    return sendPage(
      reply,
      status,
      <CommissionRulesPage
        user={user}
        csrf={reply.generateCsrf()}
        program={program}
        rules={rules}
        done={done}
        {...extra}
      />,
    );
  };

  const affiliateProgram = async (
    request: FastifyRequest<{ Params: ProgramParams }>,
    reply: FastifyReply,
  ) => {
    const user = await signedIn(request, reply);
    if (!user) return undefined;
    const program = await programOf(request, user);
    sectionShown(program, 'commissions');
    return { user, program };
  };

  app.get<{ Params: ProgramParams; Querystring: { saved?: string } }>(
    '/programs/:program/settings/commissions',
    {
      ...pageRoute,
      handler: async (request, reply) => {
        const at = await affiliateProgram(request, reply);
        if (!at) return reply;
        const done = request.query.saved === '1' ? 'The commissions were saved.' : undefined;
        return rulesPage(request, reply, at, 200, {}, done);
      },
    },
  );

  /** Saves a body of the form: back to the page, or the page again with the errors as `shown` puts them. */
  const save = async (
    request: FastifyRequest,
    reply: FastifyReply,
    at: Signed,
    body: unknown,
    shown: (errors: Record<string, string>) => Parameters<typeof rulesPage>[4],
  ) => {
    const { program } = at;
    const links = linkBase(request);
    const parsed = validators.affiliate(body);
    const read = async () => rulesText(await commissionRules(program, links));
    const outcome =
      'problems' in parsed
        ? { kind: 'invalid' as const, errors: problemsByField(parsed.problems, 'path') }
        : await saveRules(program, parsed.body, read);
    if (outcome.kind === 'done') return seeOther(reply, `${program.base}/settings/commissions?saved=1`);
    return rulesPage(request, reply, at, 422, shown(outcome.errors));
  };

  app.post<{ Params: ProgramParams }>('/programs/:program/settings/commissions/tier2', {
    ...form,
    handler: async (request, reply) => {
      const at = await affiliateProgram(request, reply);
      if (!at) return reply;
      const { program } = at;
      checkWrite(program);
      const tier2 = {
        type: formText(request.body, 'tier2.type'),
        value: formText(request.body, 'tier2.value'),
      };
      const body = {
        program_settings: {
          tier2_commission: tier2.type === '' ? null : { type: tier2.type, value: numeric(tier2.value) },
        },
      };
      return save(request, reply, at, body, (errors) => ({
        tier2,
        errors: errorsAfter(errors, /^program_settings\.tier2_commission\.?/, 'tier2.'),
      }));
    },
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/settings/commissions/products', {
    ...form,
    handler: async (request, reply) => {
      const at = await affiliateProgram(request, reply);
      if (!at) return reply;
      const { program } = at;
      checkWrite(program);
      const product: ProductForm = {
        product_id: formText(request.body, 'product_id'),
        product_type: formText(request.body, 'product_type'),
        type: formText(request.body, 'type'),
        value: formText(request.body, 'value'),
      };
      const rules = await commissionRules(program, linkBase(request));
      const added = {
        ...(product.product_id ? { product_id: product.product_id } : {}),
        ...(product.product_type ? { product_type: product.product_type } : {}),
        type: product.type,
        value: numeric(product.value),
      };
      const body = { program_settings: { product_commissions: [...productBody(rules), added] } };
      return save(request, reply, at, body, (errors) => ({
        product,
        errors: errorsAfter(errors, /^program_settings\.product_commissions(\.\d+)?\.?/),
      }));
    },
  });

  app.post<{ Params: ProgramParams }>('/programs/:program/settings/commissions/products/remove', {
    ...form,
    handler: async (request, reply) => {
      const at = await affiliateProgram(request, reply);
      if (!at) return reply;
      const { program } = at;
      checkWrite(program);
      const rules = await commissionRules(program, linkBase(request));
      const text = formText(request.body, 'index');
      const index = /^\d{1,4}$/.test(text) ? Number(text) : -1;
      if (!rules.products.some((rule) => rule.index === index)) throw pageNotFound();
      const kept = productBody(rules).filter((_, i) => i !== index);
      return save(request, reply, at, { program_settings: { product_commissions: kept } }, (errors) => ({
        errors,
      }));
    },
  });
}
