import { type Static, Type } from 'typebox';
import { ListQuery } from '../../http/list-query.ts';
import { NullableTimestamp, Paginated, Success, Timestamp } from '../../http/schemas.ts';

/**
 * The buyer's request, as the owner's backend forwards it: the API call itself comes from a
 * server, so the rules can only see the buyer through these. Every field is optional; a rule that
 * needs one nobody sent does not fire.
 */
export const RequestContext = Type.Object(
  {
    click_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'The click id `vouch.js` kept in its cookie',
      }),
    ),
    ip: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          "The buyer's IP address; only hashes of it are kept (a day's salted count, a flag's evidence)",
      }),
    ),
    user_agent: Type.Optional(Type.String({ maxLength: 1024, description: "The buyer's User-Agent header" })),
  },
  {
    additionalProperties: false,
    description: "The buyer's request as your backend saw it, for the fraud rules (a Vouch extension)",
  },
);
export type RequestContext = Static<typeof RequestContext>;

export const FraudRuleName = Type.Union([
  Type.Literal('self_referral'),
  Type.Literal('same_address'),
  Type.Literal('disposable_email'),
  Type.Literal('paid_ads'),
  Type.Literal('fast_conversion'),
]);

/** What the rules decided on a create, on its answer only (never stored with the record). */
export const FraudOutcome = Type.Object(
  {
    blocked: Type.Boolean({ description: 'true: the referral was refused (no owner, nothing earned)' }),
    rules: Type.Array(
      Type.Object({
        rule: FraudRuleName,
        action: Type.Union([Type.Literal('flag'), Type.Literal('block')]),
      }),
    ),
    flags: Type.Array(Type.String(), { description: 'Ids of the flags opened for review' }),
  },
  { description: 'Present when a fraud rule fired on this create (a Vouch extension)' },
);
export type FraudOutcome = Static<typeof FraudOutcome>;

export const FraudFlag = Type.Object(
  {
    id: Type.String(),
    rule: FraudRuleName,
    status: Type.Union([Type.Literal('open'), Type.Literal('cleared'), Type.Literal('confirmed')]),
    subject: Type.Object({
      type: Type.String({
        description: '`customer`, `transaction` (a sale `fast_conversion` flagged) or `subscriber`',
      }),
      id: Type.String({ description: "The subject's key" }),
    }),
    owner: Type.Object({
      type: Type.Union([Type.Literal('partner'), Type.Literal('referrer')]),
      id: Type.String({ description: "A partner's id, a referrer's key" }),
    }),
    evidence: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The values the rule compared: hashes, a domain, counts; never more personal data',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
    resolved_at: NullableTimestamp,
  },
  { title: 'FraudFlag' },
);

export type FraudFlag = Static<typeof FraudFlag>;
export const FraudFlagResponse = Success(FraudFlag);
export const FraudFlagListResponse = Paginated(FraudFlag);

export const ListFraudFlagsQuery = ListQuery('standard', {
  status: Type.Optional(
    Type.Union([Type.Literal('open'), Type.Literal('cleared'), Type.Literal('confirmed')]),
  ),
  rule: Type.Optional(FraudRuleName),
  partner: Type.Optional(Type.String({ maxLength: 255, description: "The owner partner's id" })),
});
export type ListFraudFlagsQuery = Static<typeof ListFraudFlagsQuery>;

export const FraudFlagIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const ConfirmFraudFlagBody = Type.Object(
  {
    deny: Type.Optional(
      Type.Boolean({ default: true, description: 'Deny the commissions the flag holds (default true)' }),
    ),
    archive_owner: Type.Optional(
      Type.Boolean({ default: false, description: "Archive the flag's partner too (default false)" }),
    ),
  },
  { additionalProperties: false },
);
export type ConfirmFraudFlagBody = Static<typeof ConfirmFraudFlagBody>;
