import type { Writable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A file that writes itself to a destination, a page at a time (an export, exportCsv). */
export interface PagedFile {
  type: string;
  filename: string;
  writeTo(out: Writable): Promise<void>;
}

/**
 * Sends a file as an attachment, written on the response itself, which says when each page is
 * flushed (ADR 0145); the headers set before it (the request id, rate limits) go with it, and
 * Fastify still runs the response hooks and logs the request. Past the first byte there is no
 * error answer: a failure cuts the file short, and is logged.
 */
export async function sendFile(request: FastifyRequest, reply: FastifyReply, file: PagedFile): Promise<void> {
  reply.type(file.type).header('content-disposition', `attachment; filename="${file.filename}"`).hijack();
  for (const [header, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) reply.raw.setHeader(header, value);
  reply.raw.writeHead(200);
  try {
    await file.writeTo(reply.raw);
    reply.raw.end();
  } catch (error) {
    request.log.error({ err: error }, 'a file failed while being sent');
    reply.raw.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}
