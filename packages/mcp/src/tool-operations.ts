/**
 * The API operation behind each MCP tool. `npm run sdk:generate` reads this table to write each
 * tool's input schema from the OpenAPI document (generated/tool-inputs.ts); the tools themselves
 * (tools.ts) call the SDK.
 */
export const toolOperations = {
  get_program: { method: 'get', path: '/v1/program', access: 'read' },
  list_partners: { method: 'get', path: '/v1/partners', access: 'read' },
  get_partner: { method: 'get', path: '/v1/partners/{id}', access: 'read' },
  create_partner: { method: 'post', path: '/v1/partners', access: 'write' },
  approve_partner: { method: 'post', path: '/v1/partners/{id}/approve', access: 'write' },
  record_sale: { method: 'post', path: '/v1/transactions', access: 'write' },
  refund_sale: { method: 'post', path: '/v1/transactions/{key}/refund', access: 'write' },
  list_commissions: { method: 'get', path: '/v1/commissions', access: 'read' },
  approve_commissions: { method: 'post', path: '/v1/commissions/approve', access: 'write' },
  create_payout: { method: 'post', path: '/v1/payouts', access: 'write' },
  list_webhooks: { method: 'get', path: '/v1/webhooks', access: 'read' },
  list_webhook_deliveries: { method: 'get', path: '/v1/webhooks/{key}/deliveries', access: 'read' },
  get_report: { method: 'get', path: '/v1/reports/timeseries', access: 'read' },
} as const satisfies Record<string, ToolOperation>;

export interface ToolOperation {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  /** Read tools are the only ones a read-scope key is shown. */
  access: 'read' | 'write';
}

export type ToolName = keyof typeof toolOperations;
export type ProgramTypeName = 'affiliate' | 'referral' | 'newsletter';

/** A tool's input: one JSON Schema object with the path, query and body fields side by side. */
export interface ToolInputSchema {
  type: 'object';
  properties: Record<string, object>;
  required?: string[];
  [keyword: string]: unknown;
}

/** Where the body's shape depends on the program type, a schema per type; else one for all. */
export type ToolInput =
  | { all: ToolInputSchema }
  | { byProgramType: Partial<Record<ProgramTypeName, ToolInputSchema>> };

export type ToolInputs = Record<ToolName, ToolInput>;
