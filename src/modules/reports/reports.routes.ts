import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { programContext } from '../../http/context.ts';
import { errorResponses } from '../../http/schemas.ts';
import { TimeseriesQuery, TimeseriesResponse, TopQuery, TopResponse } from './reports.schemas.ts';
import { getTimeseries, getTop } from './reports.service.ts';

const policy = { auth: 'apiKey', programTypes: ['affiliate', 'referral', 'newsletter'] } as const;
const tags = ['Reports'];

/** `/v1/reports/…`: figures over time and rankings (issue 26, a Vouch extension of `/v1`). */
export async function reportsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/v1/reports/timeseries', {
    config: policy,
    schema: {
      operationId: 'getReportTimeseries',
      summary: 'Figures per day, week (from Monday) or month, every bucket present, oldest first',
      description:
        'Counts and money per currency (exact, in units) read from the rows in the program time zone (setting `timezone`); clicks from the per-day click counters, by UTC day. Example: `GET /v1/reports/timeseries?metrics=clicks,signups,revenue&interval=week&start=2026-11-02&end=2026-11-15`.',
      tags,
      querystring: TimeseriesQuery,
      response: { 200: TimeseriesResponse, ...errorResponses },
    },
    handler: async (request) => getTimeseries(programContext(request), request.query),
  });

  app.get('/v1/reports/top', {
    config: policy,
    schema: {
      operationId: 'getReportTop',
      summary: 'Partners, links, referrers or promotion codes ranked by one figure over a range',
      description:
        'Highest first, ties by creation. Example: `GET /v1/reports/top?by=partners&metric=revenue&currency=USD&start=2026-01-01&end=2026-12-31&limit=10`.',
      tags,
      querystring: TopQuery,
      response: { 200: TopResponse, ...errorResponses },
    },
    handler: async (request) => ({
      data: await getTop(programContext(request), request.query),
      status: 1 as const,
    }),
  });
}
