import { type TProperties, type TSchema, Type } from 'typebox';
import { Amount, BooleanLike, NullableString, NullableTimestamp, Timestamp } from '../../http/schemas.ts';
import { RequestContext } from '../fraud/fraud.schemas.ts';

/**
 * Wire pieces both program types' transactions share (spec "Transaction"); each type's
 * `transactions.<type>.schemas.ts` adds who the sale and its rewards belong to. Property order is
 * the order responses are serialized in.
 */

/** What one sale carries; the multiple form repeats it in `transactions`. */
export const transactionEntryFields = {
  key: Type.String({ minLength: 1, maxLength: 255 }),
  amount: Amount(),
  amount_units: Type.String({ format: 'iso4217' }),
  action: Type.String({ minLength: 1, maxLength: 255 }),
  rewarded: BooleanLike,
  rewardable: BooleanLike,
  product_id: Type.String({ maxLength: 255 }),
  product_type: Type.String({ maxLength: 255 }),
  promotion_code: Type.String({
    minLength: 1,
    maxLength: 255,
    title: 'SalePromotionCode',
    description:
      'The promotion code the buyer used: redeemed with the sale (its key as `transaction_key`), or the sale is refused with 422 on this field. A new customer of a code limited to exactly one partner gets that partner. `discount_code` is another name for it.',
  }),
  discount_code: Type.String({ minLength: 1, maxLength: 255, title: 'SaleDiscountCode' }),
};

/** The sale fields of one entry, every one optional: the shape the sale flow reads them in. */
export const SaleFieldsSchema = Type.Partial(Type.Object(transactionEntryFields));

const TransactionItem = Type.Object({
  ...SaleFieldsSchema.properties,
  amount: transactionEntryFields.amount,
  action: transactionEntryFields.action,
});

/**
 * `POST /v1/transactions`: one sale, or up to 100 in `transactions`, for the buyer in `customer`.
 * The single form needs `amount` and `action`; every missing field is reported in one answer.
 */
export const createTransactionBody = <Customer extends TSchema>(customer: Customer, title: string) =>
  Type.Object(
    {
      ...SaleFieldsSchema.properties,
      customer,
      options: Type.Optional(Type.Object({ create_customer: Type.Optional(BooleanLike) })),
      context: Type.Optional({
        ...RequestContext,
        description:
          "The buyer's request, for the fraud rules on the customer `options.create_customer` creates (a Vouch extension)",
      }),
      transactions: Type.Optional(
        Type.Array(TransactionItem, {
          minItems: 1,
          maxItems: 100,
          description: 'The multiple form: at most 100 sales, recorded all or nothing.',
        }),
      ),
    },
    {
      title,
      if: { not: { required: ['transactions'] } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable.
      then: { required: ['amount', 'action'] },
    },
  );

/** One reward; `parties` name who else it concerns and follow `customer` on the wire. */
export const rewardSchema = <Parties extends TProperties>(
  title: string,
  statusDescription: string,
  parties: Parties,
) =>
  Type.Object(
    {
      key: Type.String(),
      action: Type.String(),
      status: Type.String({ description: statusDescription }),
      customer: NullableString,
      ...parties,
      amount: Type.Number(),
      amount_units: Type.String(),
      is_currency: Type.Boolean(),
      credit: Type.Boolean(),
      created_at: Timestamp,
      deleted_at: NullableTimestamp,
      product_type_data: Type.Union([
        Type.Array(Type.Never(), { maxItems: 0 }),
        Type.Object({ product_id: NullableString, product_type: NullableString }),
      ]),
      reason: Type.Optional(
        Type.String({
          description:
            "Only on `rejected` rewards: why (`self_referral`: the customer signed up with its referrer's own e-mail)",
        }),
      ),
    },
    { title },
  );

/** What a transaction reports after its amount: its kind, its time and its rewards. */
export const transactionOutcomeFields = <Reward extends TSchema>(reward: Reward) => ({
  credit: Type.Boolean(),
  is_currency: Type.Boolean(),
  amount_units: NullableString,
  created_at: Timestamp,
  deleted_at: NullableTimestamp,
  refunded_amount: Type.Number({
    description: 'Refunded so far (POST /v1/transactions/{key}/refund); 0 when never',
  }),
  rewards: Type.Array(reward),
});
