import { Type } from 'typebox';
import { ListQuery } from '../../http/list-query.ts';
import { Paginated, Timestamp } from '../../http/schemas.ts';

/** Wire shapes of `GET /v1/activity` (a Vouch extension). */

export const ActivityEntry = Type.Object(
  {
    id: Type.Integer(),
    actor: Type.Object({
      kind: Type.Union([Type.Literal('user'), Type.Literal('key')], {
        description: '`user`: a console user (named by e-mail); `key`: an API key (named by its name)',
      }),
      name: Type.String(),
      key: Type.Optional(Type.String({ description: 'The API key’s id, for a key' })),
    }),
    action: Type.String({
      description:
        'What was done: a console action (`partner.approve`, `settings.update`, …) or the API route written (`POST /v1/partners`)',
    }),
    subject: Type.Union([Type.String(), Type.Null()], {
      description: 'The record acted on, when there is one',
    }),
    changes: Type.Union(
      [
        Type.Record(Type.String(), Type.Object({ before: Type.Unknown(), after: Type.Unknown() }), {
          description: 'The fields a console write changed, before → after',
        }),
        Type.Null(),
      ],
      { description: 'Null for API writes and writes without fields' },
    ),
    address: Type.Union([Type.String(), Type.Null()], { description: 'The client address of the write' }),
    created_at: Timestamp,
  },
  {
    title: 'ActivityEntry',
    examples: [
      {
        id: 42,
        actor: { kind: 'user', name: 'owner@example.com' },
        action: 'settings.update',
        subject: null,
        changes: { 'program_settings.commission_hold_days': { before: '14', after: '30' } },
        address: '203.0.113.7',
        created_at: '2026-11-28T10:15:02.123456Z',
      },
    ],
  },
);

export const ListActivityQuery = ListQuery('standard');

export const ActivityListResponse = Paginated(ActivityEntry);
