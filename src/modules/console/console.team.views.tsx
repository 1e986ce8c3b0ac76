import { CsrfField, Field, FieldsToCorrect, Notice, Select } from '../../pages/forms.tsx';
import { Layout } from '../../pages/layout.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Done, ListTable, RowButton } from './console.lists.views.tsx';
import {
  type ConsoleProgram,
  type ConsoleRole,
  consoleRoles,
  roleLabel,
} from './console.programs.service.ts';
import type { InviteErrors, teamOf } from './console.team.service.ts';

/** The team page (owners only) and the page an invitation link opens. */

type Team = Awaited<ReturnType<typeof teamOf>>;

const roleChoices = consoleRoles.map((role) => ({
  value: role,
  label: `${roleLabel[role]}${role === 'owner' ? ': everything, team and keys too' : role === 'admin' ? ': everything but team and keys' : ': reads only'}`,
}));

export function TeamPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  team: Team;
  values?: { email: string; role: string };
  errors?: InviteErrors;
  done?: string | undefined;
  problem?: string | undefined;
}) {
  const { program, team } = props;
  const errors = props.errors ?? {};
  return (
    <ConsoleLayout title="Team" user={props.user} csrf={props.csrf} program={program} section="team">
      <div class="card">
        <h1>Team</h1>
        {props.done ? <Done>{props.done}</Done> : null}
        {props.problem ? <Notice>{props.problem}</Notice> : null}
        <p class="lead">Operators of this server run every program besides the members below.</p>
        <ListTable
          empty="No members yet."
          columns={['Member', 'Role', 'Actions']}
          rows={team.members}
          form={{ action: `${program.base}/team/remove`, csrf: props.csrf }}
          row={(member) => (
            <tr key={member.userId}>
              <td data-label="Member">{member.email}</td>
              <td data-label="Role">{roleLabel[member.role]}</td>
              <RowButton name="user" value={String(member.userId)} label={`Remove ${member.email}`}>
                Remove
              </RowButton>
            </tr>
          )}
        />
      </div>
      <div class="card">
        <h2>Invite</h2>
        <FieldsToCorrect errors={errors} />
        <form method="post" action={`${program.base}/team/invite`} novalidate>
          <CsrfField token={props.csrf} />
          <Field
            name="email"
            label="Email"
            type="email"
            required
            value={props.values?.email}
            error={errors.email}
          />
          <Select
            name="role"
            label="Role"
            options={roleChoices}
            value={props.values?.role ?? 'viewer'}
            error={errors.role}
          />
          <button type="submit">Invite</button>
        </form>
        {team.invites.length > 0 ? (
          <>
            <h3>Invitations not yet accepted</h3>
            <ul>
              {team.invites.map((open) => (
                <li key={`${open.email}-${open.expires}`}>
                  {open.email} · {roleLabel[open.role as ConsoleRole] ?? open.role}{' '}
                  <span class="muted">· until {open.expires}</span>
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </div>
    </ConsoleLayout>
  );
}

export function InvitePage(props: {
  csrf: string;
  invitation: { email: string; role: ConsoleRole; programName: string; hasAccount: boolean } | undefined;
  error?: string | undefined;
}) {
  const { invitation } = props;
  if (!invitation)
    return (
      <Layout title="Invitation" site="Vouch console">
        <div class="card">
          <h1>This invitation cannot be used</h1>
          <p>It was used already or has expired. Ask the program's owner for a new one.</p>
        </div>
      </Layout>
    );
  return (
    <Layout title="Invitation" site="Vouch console">
      <div class="card">
        <h1>Join {invitation.programName}</h1>
        <p class="lead">
          You are invited as {roleLabel[invitation.role]} with {invitation.email}.
        </p>
        {props.error ? <Notice>{props.error}</Notice> : null}
        <form method="post" novalidate>
          <CsrfField token={props.csrf} />
          <Field
            name="password"
            label={invitation.hasAccount ? 'Your password' : 'Choose a password'}
            type="password"
            required
            autocomplete={invitation.hasAccount ? 'current-password' : 'new-password'}
            {...(invitation.hasAccount
              ? {}
              : { hint: 'At least 8 characters, with a lowercase and an uppercase letter and a digit.' })}
          />
          <button type="submit">Accept invitation</button>
        </form>
      </div>
    </Layout>
  );
}
