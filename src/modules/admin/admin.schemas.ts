import { Type } from 'typebox';
import { NullableTimestamp, Timestamp } from '../../http/schemas.ts';

const ProgramTypeName = Type.Union([
  Type.Literal('affiliate'),
  Type.Literal('referral'),
  Type.Literal('newsletter'),
]);

export const AdminProgram = Type.Object(
  {
    id: Type.Integer(),
    public_id: Type.String(),
    name: Type.String(),
    type: ProgramTypeName,
    website: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'AdminProgram' },
);

export const CreateProgramBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  type: ProgramTypeName,
  website: Type.Optional(Type.String({ format: 'http-url', maxLength: 250 })),
});

export const ProgramIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const ApiKeyScope = Type.Union([Type.Literal('full'), Type.Literal('read')]);

export const CreateApiKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  scope: Type.Optional(ApiKeyScope),
});

export const CreatedApiKey = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    scope: ApiKeyScope,
    token: Type.String({ description: 'Shown only in this response' }),
    created_at: Timestamp,
  },
  { title: 'CreatedApiKey' },
);

export const ApiKey = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    scope: ApiKeyScope,
    created_at: Timestamp,
    revoked_at: NullableTimestamp,
  },
  { title: 'ApiKey' },
);

export const ApiKeyIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
