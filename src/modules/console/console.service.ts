/** What other parts of Vouch (the CLI) use of the console: its users and teams. */
export { createUser } from './console.accounts.service.ts';
export { addMember } from './console.programs.service.ts';

export { ownerEmailsOf } from './console.team.service.ts';
