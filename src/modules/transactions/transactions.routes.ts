import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programContext, variantInput } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { unionOfVariants } from '../../http/program-variants.ts';
import { errorResponses, StatusOnly, withExample, withVariantExample } from '../../http/schemas.ts';
import { success } from '../../http/success.ts';
import {
  CreateTransactionBodyByProgramType,
  CreateTransactionResponseByProgramType,
  DeleteTransactionsQuery,
  ListTransactionsQuery,
  RefundTransactionBody,
  TransactionKeyParams,
  TransactionListResponseByProgramType,
  TransactionResponseByProgramType,
} from './transactions.schemas.ts';
import {
  archiveTransaction,
  createTransactions,
  deleteTransaction,
  getTransaction,
  listTransactions,
  refundTransaction,
  revokeArchiveTransaction,
} from './transactions.service.ts';
import { transactionProgramTypes } from './transactions.shared.ts';

const policy = { auth: 'apiKey', programTypes: transactionProgramTypes } as const;
const tags = ['Transactions'];

/** `/v1/transactions…`, one route per path for every program type that has transactions. */
export async function transactionsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v1/transactions', {
    config: {
      ...policy,
      variants: {
        body: withVariantExample(CreateTransactionBodyByProgramType, 'affiliate', {
          key: 'order-1001',
          amount: '99.90',
          amount_units: 'USD',
          action: 'sale',
          customer: { key: 'cus_1001', email: 'buyer@example.com' },
        }),
        response: CreateTransactionResponseByProgramType,
      },
    },
    schema: {
      operationId: 'createTransactions',
      description:
        'Records a sale (or, with `transactions`, up to 100 at once) for a customer and creates the commissions or rewards it earns. A repeated `key` with the same fields replays the stored sale; other fields under a taken key are a 422.',
      summary: 'Record a sale, or several at once (`transactions`), with the rewards they earn',
      tags,
      response: { 200: unionOfVariants(CreateTransactionResponseByProgramType), ...errorResponses },
    },
    handler: async (request) =>
      success(
        await createTransactions(
          programContext(request),
          variantInput(request, CreateTransactionBodyByProgramType),
        ),
      ),
  });

  app.get('/v1/transactions', {
    config: { ...policy, variants: { response: TransactionListResponseByProgramType } },
    schema: {
      operationId: 'listTransactions',
      description: 'Lists transactions, newest first; the item shape depends on the program type.',
      summary: 'List transactions, newest first',
      tags,
      querystring: ListTransactionsQuery,
      response: { 200: unionOfVariants(TransactionListResponseByProgramType), ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await listTransactions(programContext(request), request.query)),
  });

  app.get('/v1/transactions/:key', {
    config: { ...policy, variants: { response: TransactionResponseByProgramType } },
    schema: {
      operationId: 'getTransaction',
      description: 'Answers a transaction by its key.',
      summary: 'Get a transaction by key',
      tags,
      params: TransactionKeyParams,
      response: { 200: unionOfVariants(TransactionResponseByProgramType), ...errorResponses },
    },
    handler: async (request) => success(await getTransaction(programContext(request), request.params.key)),
  });

  app.post('/v1/transactions/:key/archive', {
    config: policy,
    schema: {
      operationId: 'archiveTransaction',
      description: 'Archives a transaction: it and its rewards leave every total until restored.',
      summary: 'Archive a transaction: it and its rewards leave every total',
      tags,
      params: TransactionKeyParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await archiveTransaction(programContext(request), request.params.key);
      return { status: 1 as const };
    },
  });

  app.post('/v1/transactions/:key/refund', {
    config: { ...policy, variants: { response: TransactionResponseByProgramType } },
    schema: {
      operationId: 'refundTransaction',
      description:
        'Refunds a sale in full or in part (`amount`): unpaid commissions and rewards shrink in proportion, paid commissions get a clawback line.',
      summary:
        'Refund a sale, in full or in part (`amount`): unpaid rewards shrink in proportion, paid commissions get a clawback line',
      tags,
      params: TransactionKeyParams,
      body: withExample(RefundTransactionBody, { amount: 20 }),
      response: { 200: unionOfVariants(TransactionResponseByProgramType), ...errorResponses },
    },
    handler: async (request) =>
      success(await refundTransaction(programContext(request), request.params.key, request.body ?? {})),
  });

  app.post('/v1/transactions/:key/revoke-archive', {
    config: policy,
    schema: {
      operationId: 'revokeArchiveTransaction',
      description: 'Restores an archived transaction and its rewards to the totals.',
      summary: 'Restore an archived transaction and its rewards',
      tags,
      params: TransactionKeyParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await revokeArchiveTransaction(programContext(request), request.params.key);
      return { status: 1 as const };
    },
  });

  app.delete('/v1/transactions/:key', {
    config: policy,
    schema: {
      operationId: 'deleteTransaction',
      description: 'Deletes a transaction and its unpaid rewards; the figures it counted in drop with it.',
      summary: 'Delete a transaction and its rewards',
      tags,
      params: TransactionKeyParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deleteTransaction(programContext(request), request.params.key);
      return { status: 1 as const };
    },
  });

  app.delete('/v1/transactions', {
    config: policy,
    schema: {
      operationId: 'deleteTransactionByBody',
      description: 'Deletes the transaction named by `key` in the body, with its rewards.',
      summary: 'Delete a transaction named by `key` in the body',
      tags,
      querystring: DeleteTransactionsQuery,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deleteTransaction(programContext(request), request.query.key);
      return { status: 1 as const };
    },
  });
}
