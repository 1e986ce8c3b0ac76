import { CopyField, CsrfField, FieldsToCorrect } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Done } from './console.lists.views.tsx';
import { type ConsoleProgram, mayWrite } from './console.programs.service.ts';
import type { SettingField, SettingGroup } from './console.settings.service.ts';

/** Every setting of the program in forms grouped by topic, saved through `PUT /v1/program`'s checks. */

function SettingInput(props: {
  field: SettingField;
  value: string;
  error: string | undefined;
  readOnly: boolean;
}) {
  const { field } = props;
  const id = `setting-${field.path.replaceAll('.', '-')}`;
  const described =
    [field.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const invalid = props.error ? ('true' as const) : undefined;
  const hint = field.hint ? (
    <span class="hint" id={`${id}-hint`}>
      {field.hint}
    </span>
  ) : null;
  const error = props.error ? (
    <p class="error" id={`${id}-error`}>
      {props.error}
    </p>
  ) : null;
  if (field.kind === 'checkbox')
    return (
      <div class="field">
        <div class="check">
          <input
            id={id}
            name={field.path}
            type="checkbox"
            value="yes"
            checked={props.value !== ''}
            disabled={props.readOnly}
            aria-invalid={invalid}
            aria-describedby={described}
          />
          <label for={id}>{field.label}</label>
        </div>
        {hint}
        {error}
      </div>
    );
  return (
    <div class="field">
      <label for={id}>{field.label}</label>
      {hint}
      {field.kind === 'select' ? (
        <select
          id={id}
          name={field.path}
          disabled={props.readOnly}
          aria-invalid={invalid}
          aria-describedby={described}
        >
          {(field.options ?? []).map((option) => (
            <option key={option.value} value={option.value} selected={option.value === props.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          name={field.path}
          type="text"
          inputMode={field.kind === 'number' ? 'decimal' : undefined}
          value={props.value}
          maxLength={255}
          readOnly={props.readOnly}
          aria-invalid={invalid}
          aria-describedby={described}
        />
      )}
      {error}
    </div>
  );
}

export function SettingsPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  groups: readonly SettingGroup[];
  values: Record<string, string>;
  errors?: Record<string, string>;
  links: { label: string; url: string }[];
  logo: { url: string } | null;
  logoError?: string;
  saved?: boolean;
}) {
  const { program } = props;
  const errors = props.errors ?? {};
  const readOnly = !mayWrite(program.role);
  return (
    <ConsoleLayout
      title="Settings"
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="settings"
      copyScript
    >
      <div class="card">
        <h1>Settings</h1>
        {props.saved ? <Done>The settings were saved.</Done> : null}
        <FieldsToCorrect errors={props.logoError ? { logo: props.logoError, ...errors } : errors} />
        {props.links.map((link, i) => (
          <CopyField key={link.url} id={`link-${i}`} url={link.url} label={link.label} />
        ))}
        {program.type === 'affiliate' ? (
          <p>
            <a href={`${program.base}/settings/commissions`}>Second tier and product commissions</a>
          </p>
        ) : null}
      </div>
      <form method="post" novalidate>
        <CsrfField token={props.csrf} />
        {props.groups.map((group) => (
          <fieldset class="card" key={group.title}>
            <legend>
              <h2>{group.title}</h2>
            </legend>
            {group.fields.map((field) => (
              <SettingInput
                key={field.path}
                field={field}
                value={props.values[field.path] ?? ''}
                error={errors[field.path]}
                readOnly={readOnly}
              />
            ))}
          </fieldset>
        ))}
        {readOnly ? null : (
          <p class="actions">
            <button type="submit">Save settings</button>
          </p>
        )}
      </form>
      <LogoForm
        action={`${program.base}/settings/logo`}
        csrf={props.csrf}
        logo={props.logo}
        error={props.logoError}
        readOnly={readOnly}
      />
    </ConsoleLayout>
  );
}

/** The logo file: its own multipart form (a file cannot ride in the settings form's urlencoded body). */
function LogoForm(props: {
  action: string;
  csrf: string;
  logo: { url: string } | null;
  error: string | undefined;
  readOnly: boolean;
}) {
  const described = props.error ? 'logo-hint logo-error' : 'logo-hint';
  return (
    <section class="card" aria-labelledby="logo-heading">
      <h2 id="logo-heading">Logo</h2>
      {props.logo ? (
        <p class="logo-preview">
          <img src={props.logo.url} alt="The uploaded logo" />
        </p>
      ) : (
        <p class="muted">No logo is uploaded.</p>
      )}
      {props.readOnly ? null : (
        <>
          <form method="post" action={props.action} enctype="multipart/form-data">
            <CsrfField token={props.csrf} />
            <div class="field">
              <label for="logo">Logo file</label>
              <span class="hint" id="logo-hint">
                PNG, JPEG or SVG, at most 512 KB. Shown on the program’s pages and e-mails instead of the logo
                URL.
              </span>
              <input
                id="logo"
                name="logo"
                type="file"
                accept="image/png,image/jpeg,image/svg+xml"
                aria-invalid={props.error ? 'true' : undefined}
                aria-describedby={described}
              />
              {props.error ? (
                <p class="error" id="logo-error">
                  {props.error}
                </p>
              ) : null}
            </div>
            <p class="actions">
              <button type="submit">Upload logo</button>
            </p>
          </form>
          {props.logo ? (
            <form method="post" action={`${props.action}/remove`}>
              <CsrfField token={props.csrf} />
              <button type="submit" class="secondary">
                Remove logo
              </button>
            </form>
          ) : null}
        </>
      )}
    </section>
  );
}
