import { Type } from 'typebox';
import {
  defaultFraudSettings,
  fastConversionSecondsRange,
  fraudActions,
  fraudRules,
  sameAddressLimitRange,
} from '../../core/fraud.ts';

/** The fraud settings (issue 27, core/fraud.ts) of affiliate and refer-a-friend programs. */

const FraudAction = Type.Union(
  fraudActions.map((action) => Type.Literal(action)),
  { description: '`off`, `flag` (credit, but hold the money for review) or `block` (refuse to credit)' },
);

const defaults = defaultFraudSettings.fraud_rules;

export const fraudSettingsSchema = {
  fraud_rules: Type.Object(
    Object.fromEntries(
      fraudRules.map((rule) => [
        rule,
        Type.Optional({ ...FraudAction, description: `Default \`${defaults[rule]}\`` }),
      ]),
    ),
    {
      additionalProperties: false,
      description:
        'What each fraud rule does when it fires (a Vouch extension); a PUT changes the rules it names and keeps the others',
    },
  ),
  same_address_limit: Type.Integer({
    ...sameAddressLimitRange,
    description: `Referred signups of one owner from one address within a day from which \`same_address\` fires (default ${defaultFraudSettings.same_address_limit})`,
  }),
  fast_conversion_seconds: Type.Integer({
    ...fastConversionSecondsRange,
    description: `A sale sooner than this after its click fires \`fast_conversion\` (default ${defaultFraudSettings.fast_conversion_seconds}; 0 never fires)`,
  }),
  paid_ads_allowed: Type.Boolean({
    description:
      'Whether partners may bid on ads; false: a landing URL with ad click ids fires `paid_ads` (default true)',
  }),
};
