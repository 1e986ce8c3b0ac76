/**
 * What each role of a program's team may do in the owner console. `owner`: everything, team and
 * API keys included; `admin`: everything else; `viewer`: reads only (no write control is shown,
 * and every write is refused with 403).
 */

export const consoleRoles = ['owner', 'admin', 'viewer'] as const;
export type ConsoleRole = (typeof consoleRoles)[number];

export const isConsoleRole = (value: string): value is ConsoleRole =>
  (consoleRoles as readonly string[]).includes(value);

/** Changes the program's data: partners, commissions, payouts, settings, webhooks… */
export const mayWrite = (role: ConsoleRole) => role !== 'viewer';

/** Manages who is on the team and the program's API keys. */
export const mayManageTeam = (role: ConsoleRole) => role === 'owner';

export const roleLabel: Record<ConsoleRole, string> = { owner: 'Owner', admin: 'Admin', viewer: 'Viewer' };
