import type { FastifyInstance } from 'fastify';
import { formParser, formText } from '../../pages/forms.tsx';
import { formRoute, pageNotFound, pageRoute, seeOther, sendPage } from '../../pages/plugin.tsx';
import { problemsByField } from './console.outcomes.service.ts';
import type { ConsoleProgram } from './console.programs.service.ts';
import {
  checkWrite,
  type ProgramParams,
  pageNumber,
  programRequest,
  sectionShown,
} from './console.requests.pages.tsx';
import {
  customersPage,
  RefundTransactionBody,
  refund,
  transactionDetail,
  transactionsPage,
} from './console.sales.service.ts';
import { CustomersPage, TransactionsPage } from './console.sales.views.tsx';
import { TransactionPage } from './console.transaction.views.tsx';

/** `/admin/programs/{program}/customers` and `/transactions…` of affiliate and refer-a-friend programs. */

type ListQuery = { q?: string; page?: string };
type SaleParams = ProgramParams & { key: string };

const refundForm = formParser(RefundTransactionBody);

/** Customers and transactions are kept by affiliate and refer-a-friend programs: newsletters 404. */
function salesOnly(program: ConsoleProgram) {
  sectionShown(program, 'customers');
}

export async function consoleSalesRoutes(app: FastifyInstance) {
  const form = formRoute(app);

  app.get<{ Params: ProgramParams; Querystring: ListQuery }>('/programs/:program/customers', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      salesOnly(program);
      const search = (request.query.q ?? '').trim().slice(0, 255);
      const page = pageNumber(request.query.page);
      const list = await customersPage(program, search, page);
      const csrf = reply.generateCsrf();
      const view = { user, csrf, program, search, list, page };
      return sendPage(reply, 200, <CustomersPage {...view} />);
    },
  });

  app.get<{ Params: ProgramParams; Querystring: ListQuery }>('/programs/:program/transactions', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      salesOnly(program);
      const search = (request.query.q ?? '').trim().slice(0, 255);
      const page = pageNumber(request.query.page);
      const list = await transactionsPage(program, search, page);
      const csrf = reply.generateCsrf();
      const view = { user, csrf, program, search, list, page };
      return sendPage(reply, 200, <TransactionsPage {...view} />);
    },
  });

  app.get<{ Params: SaleParams; Querystring: { done?: string } }>('/programs/:program/transactions/:key', {
    ...pageRoute,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      salesOnly(program);
      const sale = await transactionDetail(program, request.params.key);
      if (!sale) throw pageNotFound();
      const done = request.query.done === 'refunded' ? 'The refund was recorded.' : undefined;
      return sendPage(
        reply,
        200,
        <TransactionPage user={user} csrf={reply.generateCsrf()} program={program} sale={sale} done={done} />,
      );
    },
  });

  app.post<{ Params: SaleParams }>('/programs/:program/transactions/:key/refund', {
    ...form,
    handler: async (request, reply) => {
      const signed = await programRequest(request, reply);
      if (!signed) return reply;
      const { user, program } = signed;
      salesOnly(program);
      checkWrite(program);
      const sale = await transactionDetail(program, request.params.key);
      if (!sale) throw pageNotFound();
      const amount = formText(request.body, 'amount');
      // Checked by the schema of `POST /v1/transactions/{key}/refund`, then by the service.
      const parsed = refundForm(amount === '' ? {} : { amount });
      const outcome =
        'problems' in parsed
          ? { kind: 'invalid' as const, errors: problemsByField(parsed.problems) }
          : await refund(program, sale.key, parsed.body);
      if (outcome.kind === 'done')
        return seeOther(reply, `${program.base}/transactions/${encodeURIComponent(sale.key)}?done=refunded`);
      return sendPage(
        reply,
        422,
        <TransactionPage
          user={user}
          csrf={reply.generateCsrf()}
          program={program}
          sale={sale}
          amount={amount.slice(0, 32)}
          errors={outcome.errors}
        />,
      );
    },
  });
}
