import type { ConsoleUser } from './console.accounts.service.ts';
import type { activityPage } from './console.activity.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import { ListTable, Pager } from './console.lists.views.tsx';
import type { ConsoleProgram } from './console.programs.service.ts';

/** The program's activity log: who changed what, when and from where, newest first. */

const shown = (value: unknown) =>
  value === null || value === undefined || value === ''
    ? '—'
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

export function ActivityPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  list: Awaited<ReturnType<typeof activityPage>>;
  page: number;
}) {
  const { program, list } = props;
  return (
    <ConsoleLayout title="Activity" user={props.user} csrf={props.csrf} program={program} section="activity">
      <div class="card">
        <h1>Activity</h1>
        <p class="lead">Every change made in the console and every write of an API key, newest first.</p>
        <ListTable
          empty="Nothing has been changed yet."
          columns={['When', 'Who', 'What', 'Changes']}
          rows={list.items}
          row={(entry) => (
            <tr key={entry.id}>
              <td data-label="When">{entry.created_at.slice(0, 16).replace('T', ' ')} UTC</td>
              <td data-label="Who">
                {entry.actor.kind === 'key' ? `API key “${entry.actor.name}”` : entry.actor.name}
                {entry.address ? (
                  <>
                    <br />
                    <span class="muted">from {entry.address}</span>
                  </>
                ) : null}
              </td>
              <td data-label="What">
                <code>{entry.action}</code>
                {entry.subject ? <span class="muted"> · {entry.subject}</span> : null}
              </td>
              <td data-label="Changes">
                {entry.changes ? (
                  <ul class="changes">
                    {Object.entries(entry.changes).map(([field, change]) => (
                      <li key={field}>
                        {field}: {shown(change.before)} → {shown(change.after)}
                      </li>
                    ))}
                  </ul>
                ) : (
                  <span class="muted">—</span>
                )}
              </td>
            </tr>
          )}
        />
        <Pager base={`${program.base}/activity`} query={{}} page={props.page} hasNext={list.hasNext} />
      </div>
    </ConsoleLayout>
  );
}
