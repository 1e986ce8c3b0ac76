import { CopyField, CsrfField, Field, FieldsToCorrect, Notice } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Badge, Done, ListTable, RowButton } from './console.lists.views.tsx';
import { type ConsoleProgram, mayWrite } from './console.programs.service.ts';
import type { WebhookForm, webhookDetail, webhooksOf } from './console.webhooks.service.ts';

/** Webhooks: the list with a form for a new one, and one webhook with its settings and delivery log. */

type Errors = Record<string, string>;

function WebhookFields(props: { events: readonly string[]; values: WebhookForm; errors: Errors }) {
  const { values, errors } = props;
  return (
    <>
      <Field name="name" label="Name" required value={values.name} error={errors.name} />
      <Field
        name="url"
        label="Endpoint URL"
        required
        value={values.url}
        error={errors.url}
        hint="Where Vouch posts each event, like https://example.com/hooks/vouch."
      />
      <div class="field">
        <div class="check">
          <input id="field-active" name="active" type="checkbox" value="yes" checked={values.active} />
          <label for="field-active">Active</label>
        </div>
      </div>
      <fieldset class="field" aria-describedby={errors.events ? 'field-events-error' : undefined}>
        <legend>Events</legend>
        <div class="events">
          {props.events.map((event) => (
            <div class="check" key={event}>
              <input
                id={`event-${event}`}
                name="events"
                type="checkbox"
                value={event}
                checked={values.events.includes(event)}
              />
              <label for={`event-${event}`}>{event}</label>
            </div>
          ))}
        </div>
        {errors.events ? (
          <p class="error" id="field-events-error">
            {errors.events}
          </p>
        ) : null}
      </fieldset>
    </>
  );
}

export function WebhooksPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  webhooks: Awaited<ReturnType<typeof webhooksOf>>;
  events: readonly string[];
  values?: WebhookForm;
  errors?: Errors;
  done?: string | undefined;
}) {
  const { program } = props;
  const base = `${program.base}/webhooks`;
  const errors = props.errors ?? {};
  return (
    <ConsoleLayout title="Webhooks" user={props.user} csrf={props.csrf} program={program} section="webhooks">
      <div class="card">
        <h1>Webhooks</h1>
        {props.done ? <Done>{props.done}</Done> : null}
        {props.webhooks.length === 0 ? (
          <p class="muted">No webhook yet: add one to tell your systems what happens in the program.</p>
        ) : (
          <ul class="programs">
            {props.webhooks.map((webhook) => (
              <li key={webhook.key}>
                <a href={`${base}/${encodeURIComponent(webhook.key)}`}>{webhook.name}</a>
                <span class="muted">
                  {webhook.url} · {webhook.is_active ? 'active' : 'paused'} · {webhook.events.length}{' '}
                  {webhook.events.length === 1 ? 'event' : 'events'}
                </span>
              </li>
            ))}
          </ul>
        )}
      </div>
      {mayWrite(program.role) ? (
        <div class="card">
          <h2>Add a webhook</h2>
          <FieldsToCorrect errors={errors} />
          <form method="post" action={base} novalidate>
            <CsrfField token={props.csrf} />
            <WebhookFields
              events={props.events}
              values={props.values ?? { name: '', url: '', active: true, events: [] }}
              errors={errors}
            />
            <button type="submit">Add webhook</button>
          </form>
        </div>
      ) : null}
    </ConsoleLayout>
  );
}

type Detail = NonNullable<Awaited<ReturnType<typeof webhookDetail>>>;

export function WebhookPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  detail: Detail;
  events: readonly string[];
  values?: WebhookForm;
  errors?: Errors;
  done?: string | undefined;
  sent?: { delivered: boolean; text: string } | undefined;
}) {
  const { program, detail } = props;
  const { webhook } = detail;
  const base = `${program.base}/webhooks/${encodeURIComponent(webhook.key)}`;
  const errors = props.errors ?? {};
  const writable = mayWrite(program.role);
  return (
    <ConsoleLayout
      title={`Webhook ${webhook.name}`}
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="webhooks"
      copyScript
    >
      <div class="card">
        <p>
          <a href={`${program.base}/webhooks`}>All webhooks</a>
        </p>
        <h1>{webhook.name}</h1>
        {props.done ? <Done>{props.done}</Done> : null}
        {props.sent ? (
          <p class={props.sent.delivered ? 'success' : 'notice'} role="status">
            {props.sent.text}
          </p>
        ) : null}
        <p class="muted">{webhook.url}</p>
        {webhook.signature && writable ? (
          <CopyField
            id="signing-secret"
            url={webhook.signature}
            label="Signing secret"
            button="Copy secret"
          />
        ) : null}
        {writable ? (
          <form method="post" action={`${base}/test`} class="actions">
            <CsrfField token={props.csrf} />
            <button type="submit">Send test event</button>
          </form>
        ) : null}
      </div>
      <div class="card">
        <h2>Deliveries</h2>
        <ListTable
          empty="Nothing was sent yet."
          columns={['When', 'Event', 'Attempt', 'Answer', writable ? 'Actions' : null]}
          rows={detail.attempts}
          form={{ action: `${base}/redeliver`, csrf: props.csrf }}
          row={(attempt) => (
            <tr key={attempt.id}>
              <td data-label="When">{attempt.created_at.slice(0, 19).replace('T', ' ')}</td>
              <td data-label="Event">
                {attempt.event}
                {attempt.test ? <span class="muted"> (test)</span> : null}
              </td>
              <td data-label="Attempt">{attempt.attempt}</td>
              <td data-label="Answer">
                <Badge kind={attempt.status === 'succeeded' ? 'approved' : 'denied'}>
                  {attempt.response_code ?? 'no answer'}
                </Badge>{' '}
                <span class="muted">
                  {attempt.duration_ms} ms{attempt.error ? ` · ${attempt.error}` : ''}
                </span>
              </td>
              {writable ? (
                <RowButton
                  name="delivery"
                  value={attempt.delivery_id}
                  label={`Redeliver ${attempt.event} (attempt ${attempt.id})`}
                >
                  Redeliver
                </RowButton>
              ) : null}
            </tr>
          )}
        />
      </div>
      {writable ? (
        <div class="card">
          <h2>Settings</h2>
          <FieldsToCorrect errors={errors} />
          <form method="post" action={base} novalidate>
            <CsrfField token={props.csrf} />
            <WebhookFields
              events={props.events}
              values={
                props.values ?? {
                  name: webhook.name,
                  url: webhook.url,
                  active: webhook.is_active,
                  events: webhook.events,
                }
              }
              errors={errors}
            />
            <p class="actions">
              <button type="submit">Save webhook</button>
            </p>
          </form>
          <form method="post" action={`${base}/delete`}>
            <CsrfField token={props.csrf} />
            <button type="submit" class="secondary">
              Delete webhook
            </button>
          </form>
          {errors.url && !props.values ? <Notice>{errors.url}</Notice> : null}
        </div>
      ) : null}
    </ConsoleLayout>
  );
}
