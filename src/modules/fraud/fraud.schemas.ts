import { type Static, Type } from 'typebox';

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
        description: "The buyer's IP address; only a salted hash of it is kept, for a day",
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
