import type { Generated } from 'kysely';

/** Tables of the leads module (migration 0012). Booleans read back as 0/1 on SQLite. */
type Bool = boolean | number;

/** A program's lead setup; a program without a row has the defaults (leads on, no form). */
export interface LeadSetupsTable {
  program_id: number;
  leads_enabled: Bool;
  /** `follow_program_settings` or `lead_specific`. */
  commission_type: string;
  /** JSON {currency, commission, commission_type}. */
  leads_commission: string;
  /** JSON array of form fields (core/lead-form.ts), each with its stable id. */
  form_fields: string;
  /** The id the next new form field gets: ids are never reused, so stored answers keep their question. */
  next_field_id: number;
  created_at: string;
  updated_at: string;
}

export interface LeadsTable {
  id: Generated<number>;
  program_id: number;
  /** `submitted`, `converted` or `rejected`. */
  status: string;
  name: string;
  email: string;
  /** The submitting partner; null once that partner is deleted. */
  partner_id: number | null;
  /** JSON {id, name, email}: the submitter as it was, shown when the partner is gone. */
  submitter: string;
  /** JSON {fieldId: answer}: the answers by form field id. */
  answers: string;
  /** JSON [{question, answer}]: the form as the partner answered it. */
  submission_form: string;
  /** JSON {key, name, email} of the customer the lead became; null until converted. */
  converted_to: string | null;
  /** The key of the sale the conversion recorded. */
  transaction_key: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../../db/tables.ts' {
  interface DB {
    lead_setups: LeadSetupsTable;
    leads: LeadsTable;
  }
}
