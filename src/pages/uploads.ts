import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';

/**
 * A form with a file input (`enctype="multipart/form-data"`), read for the routes of `scope` only:
 * its fields and one file land in the body as strings and a Buffer (the CSRF token among the
 * fields, checked as on any form). The file may run one byte past `maxBytes` and is cut there, so
 * the handler can tell "too large" in its own words rather than answer a bare 413.
 */
export async function fileForms(scope: FastifyInstance, options: { maxBytes: number }) {
  await scope.register(multipart, {
    attachFieldsToBody: 'keyValues',
    throwFileSizeLimit: false,
    limits: { fileSize: options.maxBytes + 1, files: 1, fields: 4, fieldSize: 1024, parts: 6 },
  });
}

/** The file of a multipart form's field `name`, or an empty Buffer when none was chosen. */
export function formFile(body: unknown, name: string): Buffer {
  const value =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return Buffer.isBuffer(value) ? value : Buffer.alloc(0);
}
