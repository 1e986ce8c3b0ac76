import type { FastifyInstance } from 'fastify';
import { formText } from '../../pages/forms.tsx';
import { formRoute, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import { FraudPage } from './console.fraud.views.tsx';
import type { ConsoleProgram } from './console.programs.service.ts';
import { type ProgramParams, pageNumber, programRequest } from './console.requests.pages.tsx';
import { decideFlag, flagStatuses, flagsPage } from './console.review.service.ts';

/** `/admin/programs/{program}/review`: the fraud flags of a program (every type). */

const doneText: Record<ConsoleProgram['type'], Record<string, string | undefined>> = {
  affiliate: {
    clear: 'The flag was cleared: its commissions follow the normal rules again.',
    confirm: 'The flag was confirmed: its commissions were denied.',
    'confirm-archive': 'The flag was confirmed: its commissions were denied and the partner archived.',
  },
  referral: {
    clear: 'The flag was cleared: its rewards were credited.',
    confirm: 'The flag was confirmed: its rewards were voided.',
  },
  newsletter: {
    clear: 'The flag was cleared: the referral counts once its pending days are over.',
    confirm: 'The flag was confirmed: the referral never counts.',
  },
};

export async function consoleFraudRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  app.get<{ Params: ProgramParams; Querystring: { status?: string; page?: string; done?: string } }>(
    '/programs/:program/review',
    {
      ...pageRoute,
      handler: async (request, reply) => {
        const signed = await programRequest(request, reply, { section: 'review' });
        if (!signed) return reply;
        const { user, program } = signed;
        const status = flagStatuses.find((s) => s === request.query.status) ?? 'open';
        const page = pageNumber(request.query.page);
        return sendPage(
          reply,
          200,
          <FraudPage
            user={user}
            csrf={reply.generateCsrf()}
            program={program}
            status={status}
            list={await flagsPage(program, status, page)}
            page={page}
            done={doneText[program.type][request.query.done ?? '']}
          />,
        );
      },
    },
  );

  app.post<{ Params: ProgramParams }>('/programs/:program/review/decide', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply, { section: 'review', write: true });
      if (!signed) return reply;
      const { user, program } = signed;
      const chosen = /^(clear|confirm|confirm-archive):(.{1,64})$/.exec(formText(request.body, 'one'));
      const base = `${program.base}/review`;
      const decision = chosen?.[1];
      if (!chosen?.[2] || (decision !== 'clear' && decision !== 'confirm' && decision !== 'confirm-archive'))
        return seeOther(reply, base);
      const outcome = await decideFlag(program, chosen[2], decision);
      if (outcome.kind === 'done') return seeOther(reply, `${base}?done=${outcome.decision}`);
      return sendPage(
        reply,
        422,
        <FraudPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          status="open"
          list={await flagsPage(program, 'open', 1)}
          page={1}
          problem={outcome.problem}
        />,
      );
    },
  });
}
