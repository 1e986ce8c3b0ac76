import { Field, Select } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { FormCard } from './console.forms.views.tsx';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Badge, Done, ListTable, numeric, Pager, RowButton, SearchBox } from './console.lists.views.tsx';
import { type ConsoleProgram, mayWrite } from './console.programs.service.ts';
import {
  fulfillmentChoices,
  type milestonesOf,
  type subscribersPage,
} from './console.subscribers.service.ts';

/** A newsletter's subscribers (with search) and its milestones (`Add milestone`, `Delete`). */

export function SubscribersPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  search: string;
  list: Awaited<ReturnType<typeof subscribersPage>>;
  page: number;
}) {
  const { program, list } = props;
  const base = `${program.base}/subscribers`;
  return (
    <ConsoleLayout
      title="Subscribers"
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="subscribers"
    >
      <div class="card">
        <h1>Subscribers</h1>
        <SearchBox base={base} label="Search by e-mail or id" value={props.search} />
        <ListTable
          empty="No subscribers here."
          columns={['Subscriber', 'Status', numeric('Referrals'), numeric('Milestones reached'), 'Joined']}
          rows={list.items}
          row={(subscriber) => (
            <tr key={subscriber.id}>
              <td data-label="Subscriber">
                {subscriber.name}
                {subscriber.email !== subscriber.name ? (
                  <>
                    <br />
                    <span class="muted">{subscriber.email}</span>
                  </>
                ) : null}
                {subscriber.referred ? <span class="muted"> · referred</span> : null}
              </td>
              <td data-label="Status">
                <Badge kind={subscriber.status.toLowerCase()}>{subscriber.status}</Badge>
              </td>
              <td data-label="Referrals" class="num">
                {subscriber.referrals}
              </td>
              <td data-label="Milestones reached" class="num">
                {subscriber.rewards}
              </td>
              <td data-label="Joined">{subscriber.created}</td>
            </tr>
          )}
        />
        <Pager
          base={base}
          query={props.search ? { q: props.search } : {}}
          page={props.page}
          hasNext={list.hasNext}
        />
      </div>
    </ConsoleLayout>
  );
}

export type MilestoneForm = Record<
  'name' | 'subscribers_count' | 'description' | 'fulfillment_type' | 'fulfillment_value',
  string
>;

export function MilestonesPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  milestones: Awaited<ReturnType<typeof milestonesOf>>;
  values?: MilestoneForm;
  errors?: Record<string, string>;
  done?: string | undefined;
}) {
  const { program } = props;
  const base = `${program.base}/milestones`;
  const errors = props.errors ?? {};
  const writable = mayWrite(program.role);
  return (
    <ConsoleLayout
      title="Milestones"
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="milestones"
    >
      <div class="card">
        <h1>Milestones</h1>
        <p class="muted">A subscriber whose referrals reach a milestone unlocks its reward.</p>
        {props.done ? <Done>{props.done}</Done> : null}
        <ListTable
          empty="No milestones yet."
          columns={[numeric('Referrals'), 'Reward', 'Given as', writable ? 'Actions' : null]}
          rows={props.milestones}
          form={{ action: `${base}/delete`, csrf: props.csrf }}
          row={(milestone) => (
            <tr key={milestone.id}>
              <td data-label="Referrals" class="num">
                {milestone.referrals}
              </td>
              <td data-label="Reward">
                <strong>{milestone.name}</strong>
                {milestone.description ? (
                  <>
                    <br />
                    <span class="muted">{milestone.description}</span>
                  </>
                ) : null}
              </td>
              <td data-label="Given as">
                {milestone.fulfillment}
                {milestone.value ? <span class="muted">: {milestone.value}</span> : null}
              </td>
              {writable ? (
                <RowButton name="id" value={milestone.id} label={`Delete ${milestone.name}`}>
                  Delete
                </RowButton>
              ) : null}
            </tr>
          )}
        />
      </div>
      {writable ? (
        <FormCard action={base} title="Add a milestone" csrf={props.csrf} errors={errors}>
          <Field name="name" label="Reward" value={props.values?.name} error={errors.name} />
          <Field
            name="subscribers_count"
            label="Referrals needed"
            value={props.values?.subscribers_count}
            error={errors.subscribers_count}
            maxLength={20}
          />
          <Field
            name="description"
            label="Description"
            value={props.values?.description}
            error={errors.description}
            maxLength={5000}
          />
          <Select
            name="fulfillment_type"
            label="Given as"
            options={fulfillmentChoices}
            value={props.values?.fulfillment_type ?? 'url_link'}
            error={errors.fulfillment_type}
          />
          <Field
            name="fulfillment_value"
            label="Link, code or card"
            value={props.values?.fulfillment_value}
            error={errors.fulfillment_value}
            maxLength={5000}
          />
          <p class="actions">
            <button type="submit">Add milestone</button>
          </p>
        </FormCard>
      ) : null}
    </ConsoleLayout>
  );
}
