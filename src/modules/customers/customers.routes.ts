import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programContext, variantInput } from '../../http/context.ts';
import { paginated } from '../../http/pagination.ts';
import { unionOfVariants } from '../../http/program-variants.ts';
import { errorResponses, StatusOnly, withVariantExample } from '../../http/schemas.ts';
import { success } from '../../http/success.ts';
// A customer's sales belong to the transactions module: its list, taking them back on delete, and
// the key each keeps of its buyer.
import {
  deleteSalesOfBuyer,
  listCustomerTransactions,
  renameBuyerOfSales,
} from '../transactions/transactions.service.ts';
import {
  CreateCustomerBodyByProgramType,
  CreateCustomerNestedBodyByProgramType,
  CustomerIdParams,
  CustomerListResponseByProgramType,
  CustomerResponseByProgramType,
  CustomerTransactionsQuery,
  CustomerTransactionsResponseByProgramType,
  DeleteCustomersQuery,
  ListCustomersQuery,
  SearchCustomersQuery,
  UpdateCustomerBodyByProgramType,
} from './customers.schemas.ts';
import {
  createCustomer,
  createCustomerNested,
  deleteCustomer,
  getCustomer,
  listCustomers,
  searchCustomers,
  updateCustomer,
} from './customers.service.ts';
import { customerProgramTypes } from './customers.shared.ts';

const policy = { auth: 'apiKey', programTypes: customerProgramTypes } as const;
const tags = ['Customers'];

/** `/v1/customers…`, one route per path for every program type that has customers. */
const updateCustomerBodies = withVariantExample(UpdateCustomerBodyByProgramType, 'referral', {
  update: { name: 'Amy', email: 'amy@example.com' },
});

export async function customersRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/v1/customers', {
    config: {
      ...policy,
      variants: {
        body: withVariantExample(CreateCustomerBodyByProgramType, 'affiliate', {
          key: 'cus_1001',
          email: 'buyer@example.com',
          name: 'Casey',
          partner: { key: 'pat' },
        }),
        response: CustomerResponseByProgramType,
      },
    },
    schema: {
      operationId: 'createCustomer',
      description:
        'Creates a customer: for affiliate programs a buyer attributed to a `partner` (by id, key or email), for refer-a-friend programs a customer with its own referral link, optionally `referred_by` another. The body and answer depend on the program type.',
      summary: 'Create a customer',
      tags,
      response: { 201: unionOfVariants(CustomerResponseByProgramType), ...errorResponses },
    },
    handler: async (request, reply) => {
      const data = await createCustomer(
        programContext(request),
        variantInput(request, CreateCustomerBodyByProgramType),
      );
      return reply.code(201).send(success(data));
    },
  });

  app.post('/v1/customer', {
    config: {
      ...policy,
      variants: {
        body: withVariantExample(CreateCustomerNestedBodyByProgramType, 'affiliate', {
          customer: { key: 'cus_1001', email: 'buyer@example.com' },
          partner: { key: 'pat' },
        }),
        response: CustomerResponseByProgramType,
      },
    },
    schema: {
      operationId: 'createCustomerNested',
      description:
        'Creates a customer from the older nested body `{customer, partner}`; answers as `POST /v1/customers`.',
      summary: 'Create a customer (older nested body `{customer, partner}`)',
      tags,
      response: { 201: unionOfVariants(CustomerResponseByProgramType), ...errorResponses },
    },
    handler: async (request, reply) => {
      const data = await createCustomerNested(
        programContext(request),
        variantInput(request, CreateCustomerNestedBodyByProgramType),
      );
      return reply.code(201).send(success(data));
    },
  });

  app.get('/v1/customers', {
    config: { ...policy, variants: { response: CustomerListResponseByProgramType } },
    schema: {
      operationId: 'listCustomers',
      description:
        'Lists customers, newest first; archived ones only with `status=archived`. The item shape depends on the program type.',
      summary: 'List customers, newest first',
      tags,
      querystring: ListCustomersQuery,
      response: { 200: unionOfVariants(CustomerListResponseByProgramType), ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await listCustomers(programContext(request), request.query)),
  });

  app.get('/v1/customers::search', {
    config: { ...policy, variants: { response: CustomerListResponseByProgramType } },
    schema: {
      operationId: 'searchCustomers',
      description: 'Finds customers by `id`, `key` or `email`; no match is an empty list.',
      summary: 'Search customers by id, key or email',
      tags,
      querystring: SearchCustomersQuery,
      response: { 200: unionOfVariants(CustomerListResponseByProgramType), ...errorResponses },
    },
    handler: async (request) =>
      paginated(request, request.query, await searchCustomers(programContext(request), request.query)),
  });

  app.get('/v1/customers/:id', {
    config: { ...policy, variants: { response: CustomerResponseByProgramType } },
    schema: {
      operationId: 'getCustomer',
      description:
        'Answers a customer: by key in affiliate programs, by id then key in refer-a-friend programs.',
      summary: 'Get a customer (affiliate: by key; refer-a-friend: by id or key)',
      tags,
      params: CustomerIdParams,
      response: { 200: unionOfVariants(CustomerResponseByProgramType), ...errorResponses },
    },
    handler: async (request) => success(await getCustomer(programContext(request), request.params.id)),
  });

  app.put('/v1/customers/:id', {
    config: {
      ...policy,
      variants: {
        body: updateCustomerBodies,
        response: CustomerResponseByProgramType,
      },
    },
    schema: {
      operationId: 'updateCustomer',
      description: 'Updates a customer; fields come wrapped in `update` or flat, omitted fields stay.',
      summary: 'Update a customer; the body is wrapped in `update` or flat',
      tags,
      params: CustomerIdParams,
      response: { 200: unionOfVariants(CustomerResponseByProgramType), ...errorResponses },
    },
    handler: async (request) =>
      success(
        await updateCustomer(
          programContext(request),
          request.params.id,
          variantInput(request, UpdateCustomerBodyByProgramType),
          renameBuyerOfSales,
        ),
      ),
  });

  app.put('/v1/customers', {
    config: {
      ...policy,
      variants: { body: updateCustomerBodies, response: CustomerResponseByProgramType },
    },
    schema: {
      operationId: 'updateCustomerByBody',
      description:
        'Updates the customer named by `key` or `id` in the body (the older form); fields come wrapped in `update` or flat.',
      summary: 'Update a customer named in the body (older form)',
      tags,
      response: { 200: unionOfVariants(CustomerResponseByProgramType), ...errorResponses },
    },
    handler: async (request) =>
      success(
        await updateCustomer(
          programContext(request),
          undefined,
          variantInput(request, UpdateCustomerBodyByProgramType),
          renameBuyerOfSales,
        ),
      ),
  });

  app.delete('/v1/customers/:id', {
    config: policy,
    schema: {
      operationId: 'deleteCustomer',
      description:
        'Deletes a customer with its transactions and rewards; the figures they counted in drop with them.',
      summary: 'Delete a customer with its transactions and rewards',
      tags,
      params: CustomerIdParams,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deleteCustomer(programContext(request), { path: request.params.id }, deleteSalesOfBuyer);
      return { status: 1 as const };
    },
  });

  app.delete('/v1/customers', {
    config: policy,
    schema: {
      operationId: 'deleteCustomerByBody',
      description:
        'Deletes the customer named by `key`, `email` or `id` in the body, with its transactions and rewards.',
      summary: 'Delete a customer named by `key`, `email` or `id` in the body',
      tags,
      querystring: DeleteCustomersQuery,
      response: { 200: StatusOnly, ...errorResponses },
    },
    handler: async (request) => {
      await deleteCustomer(programContext(request), request.query, deleteSalesOfBuyer);
      return { status: 1 as const };
    },
  });

  app.get('/v1/customers/:id/transactions', {
    config: { ...policy, variants: { response: CustomerTransactionsResponseByProgramType } },
    schema: {
      operationId: 'listCustomerTransactions',
      description: "Lists the customer's transactions, newest first.",
      summary: "The customer's transactions, newest first",
      tags,
      params: CustomerIdParams,
      querystring: CustomerTransactionsQuery,
      response: { 200: unionOfVariants(CustomerTransactionsResponseByProgramType), ...errorResponses },
    },
    handler: async (request) =>
      success(await listCustomerTransactions(programContext(request), request.params.id, request.query)),
  });
}
