import { CopyField, CsrfField, Field, FieldsToCorrect, Select } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import type { KeyErrors, keysOf } from './console.keys.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Badge, Done, ListTable } from './console.lists.views.tsx';
import type { ConsoleProgram } from './console.programs.service.ts';

/** The program's API keys (owners only): create one (its token shown once), revoke one. */

const scopes = [
  { value: 'full', label: 'Full: every endpoint' },
  { value: 'read', label: 'Read: GET only' },
];

export function KeysPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  keys: Awaited<ReturnType<typeof keysOf>>;
  created?: { name: string; token: string } | undefined;
  values?: { name: string; scope: string };
  errors?: KeyErrors;
  done?: string | undefined;
}) {
  const { program } = props;
  const errors = props.errors ?? {};
  return (
    <ConsoleLayout
      title="API keys"
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="keys"
      copyScript
    >
      <div class="card">
        <h1>API keys</h1>
        {props.done ? <Done>{props.done}</Done> : null}
        {props.created ? (
          <div class="success" role="status">
            <p>The key “{props.created.name}” was created. Copy its token now: it is not shown again.</p>
            <CopyField id="new-token" url={props.created.token} label="Token" button="Copy token" />
          </div>
        ) : null}
        <ListTable
          empty="This program has no key."
          columns={['Name', 'Scope', 'Created', 'State']}
          rows={props.keys}
          form={{ action: `${program.base}/keys/revoke`, csrf: props.csrf }}
          row={(key) => (
            <tr key={key.id}>
              <td data-label="Name">{key.name}</td>
              <td data-label="Scope">{key.scope === 'read' ? 'Read' : 'Full'}</td>
              <td data-label="Created">{key.created}</td>
              <td data-label="State">
                {key.revoked ? (
                  <Badge kind="denied">Revoked {key.revoked}</Badge>
                ) : (
                  <button
                    type="submit"
                    class="small secondary"
                    name="key"
                    value={key.id}
                    aria-label={`Revoke ${key.name}`}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          )}
        />
      </div>
      <div class="card">
        <h2>Create key</h2>
        <FieldsToCorrect errors={errors} />
        <form method="post" action={`${program.base}/keys`} novalidate>
          <CsrfField token={props.csrf} />
          <Field name="name" label="Name" required value={props.values?.name} error={errors.name} />
          <Select
            name="scope"
            label="Scope"
            options={scopes}
            value={props.values?.scope ?? 'full'}
            error={errors.scope}
          />
          <button type="submit">Create key</button>
        </form>
      </div>
    </ConsoleLayout>
  );
}
