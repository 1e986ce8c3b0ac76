import { CsrfField, Notice } from '../../pages/forms.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import { Done, Pager } from './console.lists.views.tsx';
import { type ConsoleProgram, mayWrite } from './console.programs.service.ts';
import type { flagsPage } from './console.review.service.ts';

/** Fraud review: the flags that hold commissions, with the evidence each rule used. */

const ruleWords: Record<string, string> = {
  self_referral: 'Self-referral',
  same_address: 'Same address',
  disposable_email: 'Disposable e-mail',
  paid_ads: 'Paid ads',
  fast_conversion: 'Fast conversion',
};

/** What a flag holds in each program type, and whether confirming may archive the owner. */
const reviewWords: Record<ConsoleProgram['type'], { lead: string; archive: boolean }> = {
  affiliate: {
    lead: 'Referrals a fraud rule flagged. Their commissions stay pending until you decide: clear a flag to let them follow the normal rules, confirm it to deny them.',
    archive: true,
  },
  referral: {
    lead: 'Referred customers a fraud rule flagged. Their rewards, for both sides, stay pending and out of every balance until you decide: clear a flag to credit them, confirm it to void them.',
    archive: false,
  },
  newsletter: {
    lead: 'Referred subscribers a fraud rule flagged. They count toward no milestone until you decide: clear a flag to let the referral count, confirm it so that it never does.',
    archive: false,
  },
};

const flagFilters = [
  { value: 'open', label: 'Open' },
  { value: 'cleared', label: 'Cleared' },
  { value: 'confirmed', label: 'Confirmed' },
] as const;

export function FraudPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  status: string;
  list: Awaited<ReturnType<typeof flagsPage>>;
  page: number;
  done?: string | undefined;
  problem?: string | undefined;
}) {
  const { program, list } = props;
  const base = `${program.base}/review`;
  const writable = mayWrite(program.role) && props.status === 'open';
  const words = reviewWords[program.type];
  return (
    <ConsoleLayout title="Review" user={props.user} csrf={props.csrf} program={program} section="review">
      <div class="card">
        <h1>Review</h1>
        <p class="lead">{words.lead}</p>
        {props.done ? <Done>{props.done}</Done> : null}
        {props.problem ? <Notice>{props.problem}</Notice> : null}
        <nav class="tabs" aria-label="Flag status">
          <ul>
            {flagFilters.map((tab) => (
              <li key={tab.value}>
                <a
                  href={`${base}?status=${tab.value}`}
                  aria-current={tab.value === props.status ? 'page' : undefined}
                >
                  {tab.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {list.items.length === 0 ? (
          <p class="muted">No flags here.</p>
        ) : (
          <form method="post" action={`${base}/decide`}>
            <CsrfField token={props.csrf} />
            <div class="scroll">
              <table class="stack">
                <thead>
                  <tr>
                    <th scope="col">Rule, flagged</th>
                    <th scope="col">Referral</th>
                    <th scope="col">Evidence</th>
                    {writable ? <th scope="col">Decision</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {list.items.map((flag) => (
                    <tr key={flag.id}>
                      <td data-label="Rule, flagged">
                        {ruleWords[flag.rule] ?? flag.rule}
                        <br />
                        <span class="muted">{flag.created_at.slice(0, 10)}</span>
                      </td>
                      <td data-label="Referral">
                        {flag.subject.type}{' '}
                        {flag.subjectHref !== undefined ? (
                          <a href={flag.subjectHref}>{flag.subject.id}</a>
                        ) : (
                          flag.subject.id
                        )}
                        <br />
                        <span class="muted">
                          by {flag.owner.word} <a href={flag.owner.href}>{flag.owner.name}</a>
                        </span>
                      </td>
                      <td data-label="Evidence">
                        <ul class="changes">
                          {Object.entries(flag.evidence).map(([name, value]) => (
                            <li key={name}>
                              {name}: {typeof value === 'string' ? value : JSON.stringify(value)}
                            </li>
                          ))}
                        </ul>
                      </td>
                      {writable ? (
                        <td>
                          <span class="actions">
                            <button
                              type="submit"
                              class="small secondary"
                              name="one"
                              value={`clear:${flag.id}`}
                              aria-label={`Clear the flag on ${flag.subject.type} ${flag.subject.id}`}
                            >
                              Clear
                            </button>
                            <button
                              type="submit"
                              class="small"
                              name="one"
                              value={`confirm:${flag.id}`}
                              aria-label={`Confirm the flag on ${flag.subject.type} ${flag.subject.id}`}
                            >
                              Confirm
                            </button>
                            {words.archive ? (
                              <button
                                type="submit"
                                class="small"
                                name="one"
                                value={`confirm-archive:${flag.id}`}
                                aria-label={`Confirm the flag on ${flag.subject.type} ${flag.subject.id} and archive the partner`}
                              >
                                Confirm and archive partner
                              </button>
                            ) : null}
                          </span>
                        </td>
                      ) : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </form>
        )}
        <Pager base={base} query={{ status: props.status }} page={props.page} hasNext={list.hasNext} />
      </div>
    </ConsoleLayout>
  );
}
