import { listActivity } from '../activity/activity.service.ts';
import type { ConsoleProgram } from './console.programs.service.ts';

/** The activity page's read, through the activity service as `GET /v1/activity` does it. */

export const PAGE_SIZE = 50;

export async function activityPage(program: ConsoleProgram, page: number) {
  const rows = await listActivity(program.ctx, { page, limit: PAGE_SIZE, sort: 'desc' });
  return { items: rows.slice(0, PAGE_SIZE), hasNext: rows.length > PAGE_SIZE };
}
