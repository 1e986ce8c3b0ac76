import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorResponses, Success } from '../../http/schemas.ts';
import { receiveProcessorEvent } from './integrations.receive.ts';
import { ProcessorEventBody, ProcessorParams, ReceivedEvent } from './integrations.schemas.ts';
import { signatureHeaders } from './integrations.verify.ts';

/** Processors send events of up to a few hundred kilobytes; anything larger is not theirs. */
const BODY_LIMIT = 1024 * 1024;

/**
 * The endpoints processors call. Signatures are over the exact bytes sent, so in this scope alone
 * every body is kept as it arrived (a Buffer beside the request) instead of parsed as JSON; the
 * service parses it once the signature holds.
 */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();

export async function processorEventRoutes(fastify: FastifyInstance) {
  await fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (request, body, done) => {
      rawBodies.set(request, body as Buffer);
      done(null, undefined);
    });
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/integrations/:provider/:program', {
      config: { auth: 'public' },
      schema: {
        operationId: 'receiveProcessorEvent',
        summary:
          'Where Stripe or Paddle delivers events (set up with PUT /v1/integrations/{provider}): verified with the processor library on the raw body, applied once per event id',
        description:
          '200 once the event is recorded (processed, ignored, unattributed, pending or failed: see the events log); ' +
          '400 for a signature that does not hold or a body that is not JSON; 404 for an unknown program or an integration that is off; ' +
          '503 for a passing fault (the processor retries).',
        tags: ['Integrations'],
        params: ProcessorParams,
        body: ProcessorEventBody,
        response: { 200: Success(ReceivedEvent), ...errorResponses },
      },
      handler: async (request) => ({
        data: await receiveProcessorEvent(
          request.server.deps,
          request.params.provider,
          request.params.program,
          rawBodies.get(request) ?? Buffer.alloc(0),
          request.headers[signatureHeaders[request.params.provider]] as string | undefined,
        ),
        status: 1 as const,
      }),
    });
  });
}
