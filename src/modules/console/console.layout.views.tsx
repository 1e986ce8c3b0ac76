import type { ComponentChildren } from 'preact';
import { CsrfField } from '../../pages/forms.tsx';
import { Layout } from '../../pages/layout.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { type ConsoleProgram, mayManageTeam } from './console.programs.service.ts';
import { CONSOLE_PATH } from './console.requests.pages.tsx';

/** The frame of every signed-in console page: the program's sections and the user's sign-out. */

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

type Entry = { section: Section; label: string; path: string };

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
    { section: 'coupons', label: 'Coupons', path: '/coupons' },
  ],
  newsletter: [
    { section: 'subscribers', label: 'Subscribers', path: '/subscribers' },
    { section: 'milestones', label: 'Milestones', path: '/milestones' },
    { section: 'coupons', label: 'Coupons', path: '/coupons' },
  ],
};

const sectionsOf = (program: ConsoleProgram): readonly Entry[] => [
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

export function ConsoleLayout(props: {
  title: string;
  user: ConsoleUser;
  csrf: string;
  program?: ConsoleProgram;
  section: Section;
  /** Whether the page has a copy button. */
  copyScript?: boolean;
  children: ComponentChildren;
}) {
  const { program } = props;
  const here = (section: Section) => (props.section === section ? ('page' as const) : undefined);
  return (
    <Layout
      title={props.title}
      site={program ? `${program.name} · Vouch console` : 'Vouch console'}
      wide
      copyScript={props.copyScript ?? false}
      nav={
        <nav class="console" aria-label="Console">
          <ul>
            <li>
              <a href={`${CONSOLE_PATH}/programs`} aria-current={here('programs')}>
                Programs
              </a>
            </li>
            {program
              ? sectionsOf(program).map((s) => (
                  <li key={s.section}>
                    <a href={`${program.base}${s.path}`} aria-current={here(s.section)}>
                      {s.label}
                    </a>
                  </li>
                ))
              : null}
            <li>
              <form method="post" action={`${CONSOLE_PATH}/sign-out`}>
                <CsrfField token={props.csrf} />
                <button type="submit" class="secondary">
                  Sign out
                </button>
              </form>
            </li>
          </ul>
        </nav>
      }
    >
      {props.children}
    </Layout>
  );
}
