import { CsrfField } from '../../pages/forms.tsx';
import type { getDashboard } from './portal.dashboard.service.ts';
import type { PortalProgram } from './portal.service.ts';

/** What every signed-in portal page shares: its address and the navigation with sign-out. */

export type Dashboard = Awaited<ReturnType<typeof getDashboard>>;

/** The signed-in header: where a partner can go, and the sign-out button (a POST with its token). */
export function PortalNav(props: {
  portal: PortalProgram;
  csrf: string;
  current: 'dashboard' | 'settings' | 'leads';
}) {
  const here = (page: typeof props.current) => (props.current === page ? ('page' as const) : undefined);
  return (
    <nav class="portal" aria-label="Portal">
      <ul>
        <li>
          <a href={`${props.portal.base}/dashboard`} aria-current={here('dashboard')}>
            Dashboard
          </a>
        </li>
        {props.portal.leadsPage ? (
          <li>
            <a href={`${props.portal.base}/leads`} aria-current={here('leads')}>
              Leads
            </a>
          </li>
        ) : null}
        <li>
          <a href={`${props.portal.base}/settings`} aria-current={here('settings')}>
            Settings
          </a>
        </li>
        <li>
          <form method="post" action={`${props.portal.base}/sign-out`}>
            <CsrfField token={props.csrf} />
            <button type="submit" class="secondary">
              Sign out
            </button>
          </form>
        </li>
      </ul>
    </nav>
  );
}
