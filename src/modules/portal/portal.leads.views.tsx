import { CsrfField, Field, FieldsToCorrect } from '../../pages/forms.tsx';
import { Layout } from '../../pages/layout.tsx';
import type { getLeadPage, LeadErrors, LeadForm } from './portal.dashboard.service.ts';
import { countryCodes, type LeadFormField, type PortalProgram } from './portal.service.ts';
import { PortalNav } from './portal.shared.views.tsx';

/** The lead form page: the program's questions and the partner's leads. */

type LeadView = Awaited<ReturnType<typeof getLeadPage>>;

/** One question of the program's lead form, named `cfield-{id}`; its `text` is shown as plain text. */
function LeadQuestion(props: {
  field: LeadFormField;
  value: string | string[] | undefined;
  error?: string | undefined;
}) {
  const { field } = props;
  const id = `cfield-${field.id}`;
  const described = [field.description ? `${id}-hint` : '', props.error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  const aria = {
    'aria-invalid': props.error ? ('true' as const) : undefined,
    'aria-describedby': described || undefined,
  };
  const chosen = new Set(Array.isArray(props.value) ? props.value : props.value ? [props.value] : []);
  const text = typeof props.value === 'string' ? props.value : '';
  const hint = field.description ? (
    <span class="hint" id={`${id}-hint`}>
      {field.description}
    </span>
  ) : null;
  const error = props.error ? (
    <p class="error" id={`${id}-error`}>
      {props.error}
    </p>
  ) : null;
  const label = `${field.title}${field.required ? '' : ' (optional)'}`;
  // The setup's `text` is HTML for the API's own portals; here it is shown as plain text.
  const intro = field.text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (field.type === 'checkbox' || field.type === 'radio') {
    const kind = field.type;
    return (
      <fieldset class="field" {...aria}>
        <legend>{label}</legend>
        {intro ? <p class="muted">{intro}</p> : null}
        {hint}
        {field.options.map((option, i) => (
          <div class="check" key={option}>
            <input id={`${id}-${i}`} type={kind} name={id} value={option} checked={chosen.has(option)} />
            <label for={`${id}-${i}`}>{option}</label>
          </div>
        ))}
        {error}
      </fieldset>
    );
  }
  const choices =
    field.type === 'countries'
      ? [...countryCodes].sort()
      : field.type === 'select'
        ? field.options
        : undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {intro ? <span class="hint">{intro}</span> : null}
      {hint}
      {choices ? (
        <select id={id} name={id} required={field.required} {...aria}>
          <option value="">Choose…</option>
          {choices.map((choice) => (
            <option key={choice} value={choice} selected={chosen.has(choice)}>
              {choice}
            </option>
          ))}
        </select>
      ) : field.type === 'textarea' ? (
        <textarea id={id} name={id} rows={4} maxLength={10_000} required={field.required} {...aria}>
          {text}
        </textarea>
      ) : (
        <input
          id={id}
          name={id}
          type="text"
          maxLength={255}
          value={text}
          required={field.required}
          {...aria}
        />
      )}
      {error}
    </div>
  );
}

const leadStatusWords: Record<string, string> = {
  submitted: 'Submitted',
  converted: 'Converted',
  rejected: 'Rejected',
};

export function LeadsPage(props: {
  portal: PortalProgram;
  view: LeadView;
  csrf: string;
  values?: LeadForm;
  errors?: LeadErrors;
  submitted?: boolean;
}) {
  const { portal, view } = props;
  const errors = props.errors ?? {};
  return (
    <Layout
      title="Leads"
      brand={portal.brand}
      nav={<PortalNav portal={portal} csrf={props.csrf} current="leads" />}
    >
      <h1>Leads</h1>
      <section class="card" aria-labelledby="lead-form-heading">
        <h2 id="lead-form-heading">Submit a lead</h2>
        {props.submitted ? (
          <p class="success" role="status">
            Thank you: your lead is submitted. {portal.name} will review it.
          </p>
        ) : null}
        {!view.enabled ? (
          <p class="muted">{portal.name} does not take leads at the moment.</p>
        ) : (
          <form method="post" novalidate>
            <FieldsToCorrect errors={errors} />
            <CsrfField token={props.csrf} />
            <Field name="name" label="Name" required value={props.values?.name} error={errors.name} />
            <Field
              name="email"
              type="email"
              label="E-mail address"
              required
              value={props.values?.email}
              error={errors.email}
            />
            {view.fields.map((field) => (
              <LeadQuestion
                key={field.id}
                field={field}
                value={props.values?.answers[String(field.id)]}
                error={errors[String(field.id)]}
              />
            ))}
            <button type="submit">Submit lead</button>
          </form>
        )}
      </section>
      <section class="card" aria-labelledby="your-leads-heading">
        <h2 id="your-leads-heading">Your leads</h2>
        {view.leads.length === 0 ? (
          <p class="muted">No leads yet.</p>
        ) : (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Date</th>
                  <th scope="col">Lead</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {view.leads.map((lead) => (
                  <tr key={lead.id}>
                    <td>{lead.day}</td>
                    <td>
                      {lead.name}
                      <br />
                      <span class="muted">{lead.email}</span>
                    </td>
                    <td>{leadStatusWords[lead.status] ?? lead.status}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Layout>
  );
}
