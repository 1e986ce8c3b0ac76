import type { Dialect } from '../src/db/database.ts';
import { ManualClock, startServer, type TestProgram, type TestServer } from './harness.ts';

/** An e-mail as the outbox keeps it. */
export interface QueuedEmail {
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
}

/** E-mails in the program's outbox, in the order they were queued. */
export const queuedEmails = (server: TestServer, p: Pick<TestProgram, 'id'>): Promise<QueuedEmail[]> =>
  server.deps.database.db
    .selectFrom('email_outbox')
    .select(['recipient', 'subject', 'text_body', 'html_body'])
    .where('program_id', '=', p.id)
    .orderBy('id')
    .execute();

/**
 * A server of its own whose clock the test moves (notices wait for rows to settle), closed after
 * `run`.
 */
export async function withClockedServer(
  dialect: Dialect,
  env: Record<string, string>,
  run: (own: TestServer, clock: ManualClock) => Promise<void>,
): Promise<void> {
  const clock = new ManualClock();
  const own = await startServer({ dialect, clock, env });
  try {
    await run(own, clock);
  } finally {
    await own.close();
  }
}
