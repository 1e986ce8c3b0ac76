import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { programContext } from '../../http/context.ts';
import { errorResponses } from '../../http/schemas.ts';
import { sendFile } from '../../http/send-file.ts';
import { EXPORT_NAMES, exportColumns, exportQueries } from './reports.exports.schemas.ts';
import { exportCsv, exportProgramTypes } from './reports.exports.service.ts';

const operationIds = {
  partners: 'exportPartners',
  customers: 'exportCustomers',
  transactions: 'exportTransactions',
  commissions: 'exportCommissions',
  subscribers: 'exportSubscribers',
} as const;

/** `GET /v1/exports/{name}.csv`: whole lists as CSV files, streamed (issue 26). */
export async function exportsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  for (const name of EXPORT_NAMES) {
    app.get(`/v1/exports/${name}.csv`, {
      config: { auth: 'apiKey', programTypes: exportProgramTypes(name) },
      schema: {
        operationId: operationIds[name],
        summary: `Export every ${name === 'commissions' ? 'commission' : name.slice(0, -1)} as CSV, oldest first`,
        description: `One header row (${exportColumns[name]}), then one row each (RFC 4180; text that would start a spreadsheet formula gets a leading apostrophe; amounts exact). Streamed a page at a time. Example: \`GET /v1/exports/${name}.csv?start=2026-01-01&end=2026-12-31\`.`,
        tags: ['Exports'],
        querystring: exportQueries[name],
        response: {
          // A stream is sent as it is (never serialized); the schema documents the file.
          200: Type.Unsafe<unknown>({
            description: 'The CSV file, streamed',
            content: {
              'text/csv': {
                schema: { type: 'string' },
                example: `${exportColumns[name].replaceAll(' ', '')}\n`,
              },
            },
          }),
          ...errorResponses,
        },
      },
      handler: async (request, reply) => {
        const ctx = programContext(request);
        const file = await exportCsv(ctx, ctx.program, name, request.query);
        await sendFile(request, reply, { type: 'text/csv; charset=utf-8', ...file });
      },
    });
  }
}
