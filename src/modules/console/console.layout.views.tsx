import type { ComponentChildren } from 'preact';
import { CsrfField } from '../../pages/forms.tsx';
import { Layout } from '../../pages/layout.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import type { ConsoleProgram } from './console.programs.service.ts';
import { CONSOLE_PATH } from './console.requests.pages.tsx';
import { type Section, sectionsOf } from './console.sections.service.ts';

export type { Section };

/** The frame of every signed-in console page: the program's sections and the user's sign-out. */

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
