import { type Static, Type } from 'typebox';
import { ListQuery } from '../../http/list-query.ts';
import {
  Amount,
  BooleanLike,
  DateOnly,
  Email,
  NullableString,
  Paginated,
  Success,
} from '../../http/schemas.ts';
import { PartnerRef, PartnerRefInput } from '../partners/partners.schemas.ts';
import { Currency } from '../program/program.schemas.ts';

/** Wire shapes of leads and the lead setup (spec "Lead", "Lead setup"). */

const MAX_FORM_FIELDS = 100;
const MAX_OPTIONS = 100;

const FieldType = Type.Union(
  [
    Type.Literal('text'),
    Type.Literal('input'),
    Type.Literal('textarea'),
    Type.Literal('checkbox'),
    Type.Literal('radio'),
    Type.Literal('select'),
    Type.Literal('countries'),
  ],
  { description: 'text, input, textarea, checkbox, radio, select or countries' },
);

export const LeadFormField = Type.Object(
  {
    id: Type.Integer({ description: 'Stable across setup edits: the key of the answer in `cfields`' }),
    type: FieldType,
    title: Type.String(),
    text: Type.String({ description: 'HTML shown with the field' }),
    description: NullableString,
    required: Type.Boolean(),
    options: Type.Array(Type.String()),
  },
  { title: 'LeadFormField' },
);

const LeadCommission = Type.Object(
  {
    currency: Type.String(),
    commission: Type.Number(),
    commission_type: Type.String({ description: '`percent` or `fixed`' }),
  },
  { title: 'LeadCommission' },
);

export const LeadSetup = Type.Object(
  {
    leads_enabled: Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'The text `true` or `false`, as the spec shows it',
    }),
    program_leads_commission_type: Type.String({
      description:
        '`follow_program_settings`: a converted lead earns what any sale earns; `lead_specific`: it earns `leads_commission`',
    }),
    leads_commission: LeadCommission,
    leads_custom_form_fields: Type.Array(LeadFormField),
  },
  { title: 'LeadSetup' },
);

const FormFieldInput = Type.Object(
  {
    id: Type.Optional(
      Type.Integer({ minimum: 1, description: 'An existing field keeps its id; omit it for a new field' }),
    ),
    type: FieldType,
    title: Type.String({ minLength: 1, maxLength: 255 }),
    text: Type.Optional(Type.String({ maxLength: 10_000 })),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    required: Type.Optional(BooleanLike),
    options: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: MAX_OPTIONS,
        description: 'Required for checkbox, radio and select',
      }),
    ),
  },
  { title: 'LeadFormFieldInput' },
);

const setupChanges = {
  leads_enabled: Type.Optional(BooleanLike),
  program_leads_commission_type: Type.Optional(
    Type.Union([Type.Literal('follow_program_settings'), Type.Literal('lead_specific')]),
  ),
  leads_commission: Type.Optional(
    Type.Object({
      currency: Type.Optional(Currency),
      commission: Type.Optional(
        Type.Number({ minimum: 0, maximum: 1_000_000_000, 'x-amount': { sign: 'any' } }),
      ),
      commission_type: Type.Optional(Type.Union([Type.Literal('percent'), Type.Literal('fixed')])),
    }),
  ),
  leads_custom_form_fields: Type.Optional(
    Type.Array(FormFieldInput, {
      maxItems: MAX_FORM_FIELDS,
      description: 'The whole form: listed fields stay (by id) or are added, fields not listed are removed',
    }),
  ),
};

export const UpdateLeadSetupBody = Type.Object(setupChanges, {
  title: 'UpdateLeadSetupBody',
  description: 'Flat, or wrapped as `{"update": {...}}`; omitted fields stay as they are.',
});
export type UpdateLeadSetupBody = Static<typeof UpdateLeadSetupBody>;

// Lengths and choices depend on the field's type: the service checks them (core/lead-form.ts), so
// a long answer is refused with its field's limit; the 1 MiB body limit bounds everything.
const Answer = Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: MAX_OPTIONS })], {
  description: 'A string, or an array of options for a checkbox field',
  'x-error': 'string',
});

export const CreateLeadBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    email: Email(),
    partner: PartnerRefInput,
    cfields: Type.Optional(
      Type.Record(Type.String(), Answer, {
        maxProperties: MAX_FORM_FIELDS,
        description: 'Answers keyed by form field id (`GET /v1/leads/details`)',
      }),
    ),
  },
  { title: 'CreateLeadBody' },
);
export type CreateLeadBody = Static<typeof CreateLeadBody>;

export const Lead = Type.Object(
  {
    id: Type.Integer(),
    status: Type.Union([Type.Literal('submitted'), Type.Literal('converted'), Type.Literal('rejected')]),
    created_at: DateOnly,
    lead_info: Type.Object({ name: Type.String(), email: Type.String() }),
    converted_to: Type.Union([
      Type.Object({ key: Type.String(), name: NullableString, email: NullableString }),
      Type.Null(),
    ]),
    submitter: Type.Object({ id: Type.String(), name: NullableString, email: Type.String() }),
    submission_form: Type.Array(Type.Object({ question: Type.String(), answer: NullableString })),
    can_be_converted: Type.Boolean(),
    can_be_rejected: Type.Boolean(),
  },
  { title: 'Lead' },
);

export const LeadResponse = Success(Lead);
export const LeadListResponse = Paginated(Lead);
export const LeadSetupResponse = Success(LeadSetup);

export const ListLeadsQuery = ListQuery('standard', {
  status: Type.Optional(
    Type.Union([Type.Literal('submitted'), Type.Literal('converted'), Type.Literal('rejected')]),
  ),
  email: Type.Optional(Type.String({ maxLength: 255 })),
  partner: Type.Optional(Type.Partial(PartnerRef)),
});
export type ListLeadsQuery = Static<typeof ListLeadsQuery>;

/** Lead ids are integers; anything else names no lead (404), like an unknown one. */
export const LeadIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

const QueryLeadId = Type.String({ minLength: 1, maxLength: 64 });
const BodyLeadId = Type.Union([Type.Integer(), Type.String({ minLength: 1, maxLength: 64 })], {
  'x-error': 'integer',
});
const ConversionAmount = Amount({
  description: 'The amount of the sale the conversion records (a number or numeric string)',
});

export const ConvertLeadQuery = Type.Object({
  id: QueryLeadId,
  commission_transaction_amount: ConversionAmount,
});
export const ConvertLeadBody = Type.Object(
  { id: BodyLeadId, commission_transaction_amount: ConversionAmount },
  { title: 'ConvertLeadBody' },
);
export type ConvertLeadInput = { id: string | number; commission_transaction_amount: number | string };

export const RejectLeadQuery = Type.Object({ id: QueryLeadId });
export const RejectLeadBody = Type.Object({ id: BodyLeadId }, { title: 'RejectLeadBody' });
