import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programContext } from '../../http/context.ts';
import { errorResponses, StatusOnly, Success, withExample } from '../../http/schemas.ts';
import { CreditBalanceBody, CustomerBalance } from './customers.balance.schemas.ts';
import { creditCustomerBalance, getCustomerBalance } from './customers.balance.service.ts';
import { CustomerIdParams } from './customers.schemas.ts';

const policy = { auth: 'apiKey', programTypes: ['referral'] } as const;
const tags = ['Customer balance'];

/** `/v1/customers/{id}/balance…` (refer-a-friend programs). */
export async function customerBalanceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v1/customers/:id/balance', {
    config: policy,
    schema: {
      operationId: 'getCustomerBalance',
      description:
        'Answers what the customer has earned and not yet received, per currency, and its non-currency rewards.',
      summary: "The customer's balance per currency and its non-currency rewards",
      tags,
      params: CustomerIdParams,
      response: { 200: Success(CustomerBalance), ...errorResponses },
    },
    handler: async (request) => ({
      data: await getCustomerBalance(programContext(request), request.params.id),
      status: 1 as const,
    }),
  });

  app.post('/v1/customers/:id/balance/credit', {
    config: policy,
    schema: {
      operationId: 'creditCustomerBalance',
      description:
        'Records that an amount was handed to the customer: it leaves the balance of its currency, which never goes below zero (422).',
      summary: 'Record that an amount was handed to the customer: it leaves the balance, never below zero',
      tags,
      params: CustomerIdParams,
      body: withExample(CreditBalanceBody, { amount: 10, amount_units: 'USD', is_currency: true }),
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await creditCustomerBalance(programContext(request), request.params.id, request.body);
      return { status: 1 as const };
    },
  });
}
