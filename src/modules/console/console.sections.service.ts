import { type ConsoleProgram, mayManageTeam } from './console.programs.service.ts';

/** The console's sections: the menu of each program type, and which pages a program has. */

export type Section =
  | 'programs'
  | 'overview'
  | 'partners'
  | 'customers'
  | 'transactions'
  | 'commissions'
  | 'payouts'
  | 'review'
  | 'leads'
  | 'coupons'
  | 'subscribers'
  | 'milestones'
  | 'rewards'
  | 'settings'
  | 'webhooks'
  | 'activity'
  | 'team'
  | 'keys';

export type Entry = { section: Section; label: string; path: string };

/** The sections of each program type, in the order of the menu. */
const sectionsByType: Record<ConsoleProgram['type'], readonly Entry[]> = {
  affiliate: [
    { section: 'partners', label: 'Partners', path: '/partners' },
    { section: 'customers', label: 'Customers', path: '/customers' },
    { section: 'transactions', label: 'Transactions', path: '/transactions' },
    { section: 'commissions', label: 'Commissions', path: '/commissions' },
    { section: 'payouts', label: 'Payouts', path: '/payouts' },
    { section: 'review', label: 'Review', path: '/review' },
    { section: 'leads', label: 'Leads', path: '/leads' },
    { section: 'coupons', label: 'Coupons', path: '/coupons' },
  ],
  referral: [
    { section: 'customers', label: 'Customers', path: '/customers' },
    { section: 'transactions', label: 'Transactions', path: '/transactions' },
    { section: 'rewards', label: 'Rewards', path: '/rewards' },
    { section: 'review', label: 'Review', path: '/review' },
    { section: 'coupons', label: 'Coupons', path: '/coupons' },
  ],
  newsletter: [
    { section: 'subscribers', label: 'Subscribers', path: '/subscribers' },
    { section: 'milestones', label: 'Milestones', path: '/milestones' },
    { section: 'review', label: 'Review', path: '/review' },
    { section: 'coupons', label: 'Coupons', path: '/coupons' },
  ],
};

export const sectionsOf = (program: ConsoleProgram): readonly Entry[] => [
  { section: 'overview', label: 'Overview', path: '' },
  ...sectionsByType[program.type],
  { section: 'webhooks', label: 'Webhooks', path: '/webhooks' },
  { section: 'settings', label: 'Settings', path: '/settings' },
  { section: 'activity', label: 'Activity', path: '/activity' },
  ...(mayManageTeam(program.role)
    ? [
        { section: 'team' as const, label: 'Team', path: '/team' },
        { section: 'keys' as const, label: 'API keys', path: '/keys' },
      ]
    : []),
];

/** Whether the program's menu has `section` (its type's sections, and the role's). */
export const showsSection = (program: ConsoleProgram, section: Section): boolean =>
  sectionsOf(program).some((entry) => entry.section === section);
