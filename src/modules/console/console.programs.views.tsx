import { CsrfField, Field, FieldsToCorrect, Select } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import type { ConsoleProgramEntry, ProgramType } from './console.programs.service.ts';
import { programTypeLabel, roleLabel } from './console.programs.service.ts';
import { CONSOLE_PATH } from './console.requests.pages.tsx';

/** The programs a user runs, and the form that makes a new one. */

export function ProgramsPage(props: { user: ConsoleUser; csrf: string; programs: ConsoleProgramEntry[] }) {
  return (
    <ConsoleLayout title="Programs" user={props.user} csrf={props.csrf} section="programs">
      <div class="card">
        <h1>Programs</h1>
        <p class="lead">Signed in as {props.user.email}.</p>
        {props.programs.length === 0 ? (
          <p>You are not on the team of any program yet. Ask a program's owner to invite you.</p>
        ) : (
          <ul class="programs">
            {props.programs.map((program) => (
              <li key={program.publicId}>
                <a href={`${CONSOLE_PATH}/programs/${program.publicId}`}>{program.name}</a>
                <span class="muted">
                  {programTypeLabel[program.type]} · {roleLabel[program.role]}
                </span>
              </li>
            ))}
          </ul>
        )}
        {props.user.operator ? (
          <p class="actions">
            <a class="button" href={`${CONSOLE_PATH}/programs/new`}>
              New program
            </a>
          </p>
        ) : null}
      </div>
    </ConsoleLayout>
  );
}

export interface NewProgramForm {
  name: string;
  type: string;
  website: string;
}

export type NewProgramErrors = Partial<Record<keyof NewProgramForm, string>>;

const typeChoices: { value: ProgramType; label: string }[] = [
  { value: 'affiliate', label: 'Affiliate: partners earn commissions' },
  { value: 'referral', label: 'Refer-a-friend: customers earn rewards' },
  { value: 'newsletter', label: 'Newsletter: subscribers earn milestone rewards' },
];

export function NewProgramPage(props: {
  user: ConsoleUser;
  csrf: string;
  values?: NewProgramForm;
  errors?: NewProgramErrors;
}) {
  const errors = props.errors ?? {};
  return (
    <ConsoleLayout title="New program" user={props.user} csrf={props.csrf} section="programs">
      <div class="card">
        <h1>New program</h1>
        <FieldsToCorrect errors={errors} />
        <form method="post" novalidate>
          <CsrfField token={props.csrf} />
          <Field name="name" label="Name" required value={props.values?.name} error={errors.name} />
          <Select
            name="type"
            label="Type"
            options={typeChoices}
            value={props.values?.type}
            error={errors.type}
          />
          <Field
            name="website"
            label="Website (optional)"
            hint="The site partners and customers link to, like https://example.com."
            value={props.values?.website}
            error={errors.website}
          />
          <button type="submit">Create program</button>
        </form>
      </div>
    </ConsoleLayout>
  );
}
