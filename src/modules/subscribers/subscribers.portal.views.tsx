import { documentShell } from '../../pages/layout.tsx';
import { escapeText, renderPart } from '../../pages/rendered.tsx';
import type { Brand, getPortalPage, Leader, Milestone } from './subscribers.pages.service.ts';

export type Portal = NonNullable<Awaited<ReturnType<typeof getPortalPage>>>;

export function CopyLink(props: { url: string; label: string }) {
  return (
    <div class="field">
      <label for="share-link">{props.label}</label>
      <div class="copy">
        <input id="share-link" type="url" readOnly value={props.url} />
        {/* Shown by the script: without it, the link is selectable text. */}
        <button type="button" class="secondary" data-copy="share-link" data-status="copy-status" hidden>
          Copy link
        </button>
      </div>
      <p id="copy-status" class="muted status" aria-live="polite" />
    </div>
  );
}

export function FulfilmentValue(props: { type: string; value: string; name: string }) {
  if (props.value === '') return null;
  if (props.type === 'url_link' && /^https?:\/\//i.test(props.value))
    return (
      <p>
        <a href={props.value} rel="noopener noreferrer">
          Get {props.name}
        </a>
      </p>
    );
  return (
    <p>
      {props.type === 'generic_coupon'
        ? 'Coupon code'
        : props.type === 'retailer_gift_card'
          ? 'Gift card'
          : 'Value'}
      : <code>{props.value}</code>
    </p>
  );
}

export function Upcoming(props: { upcoming: readonly Milestone[] }) {
  if (props.upcoming.length === 0) return null;
  return (
    <>
      <h3>Still to unlock</h3>
      <ul class="rewards">
        {props.upcoming.map((m) => (
          <li key={m.id}>
            <strong>{m.name}</strong> — {m.subscriberCount}{' '}
            {m.subscriberCount === 1 ? 'referral' : 'referrals'}
            {m.description ? <p class="muted">{m.description}</p> : null}
          </li>
        ))}
      </ul>
    </>
  );
}

export function Leaderboard(props: { leaders: readonly Leader[]; you: number }) {
  return (
    <section class="card" aria-labelledby="board-heading">
      <h2 id="board-heading">Top referrers</h2>
      {props.leaders.length === 0 ? (
        <p class="muted">Nobody has referred a friend yet. Be the first!</p>
      ) : (
        <ol class="board">
          {props.leaders.map((leader, index) => (
            <li key={index + 1} class={index === props.you ? 'you' : undefined}>
              {leader.firstName}
              {index === props.you ? ' (you)' : ''} — {leader.count}{' '}
              {leader.count === 1 ? 'referral' : 'referrals'}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/**
 * What the portal renders once and reuses: the parts every reader of a program sees alike while
 * its milestones and leaderboard lists are reused (`PORTAL_CACHE_MS`). Keyed by those very lists,
 * so a new list is rendered anew and the old HTML goes with the old list. Kept as UTF-8 bytes:
 * the page is sent as one buffer of its parts, so text that every reader sees alike is not
 * encoded again on every view (the parts hold non-Latin-1 text, such as the dash, whose encoding
 * costs more than a copy).
 */
export const upcomingParts = new WeakMap<readonly Milestone[], Map<string, Buffer>>();

export const boardParts = new WeakMap<readonly Leader[], Map<number, Buffer>>();

/** Unlocked sets per list kept at most (in practice a few: milestones unlock in order). */
export const UPCOMING_VARIANTS = 64;

export const NO_PART = Buffer.alloc(0);

export function upcomingPart(milestones: readonly Milestone[], unlocked: readonly { id: number }[]): Buffer {
  if (milestones.length === 0) return NO_PART;
  let variants = upcomingParts.get(milestones);
  if (!variants) {
    variants = new Map();
    upcomingParts.set(milestones, variants);
  }
  const key = unlocked.map((r) => r.id).join(',');
  let part = variants.get(key);
  if (part === undefined) {
    const unlockedIds = new Set(unlocked.map((r) => r.id));
    part = Buffer.from(renderPart(<Upcoming upcoming={milestones.filter((m) => !unlockedIds.has(m.id))} />));
    if (variants.size < UPCOMING_VARIANTS) variants.set(key, part);
  }
  return part;
}

/** The leaderboard as HTML: at most one variant per place of the reader (or none) in the list. */
export function boardPart(leaders: readonly Leader[], you: number): Buffer {
  let variants = boardParts.get(leaders);
  if (!variants) {
    variants = new Map();
    boardParts.set(leaders, variants);
  }
  let part = variants.get(you);
  if (part === undefined) {
    part = Buffer.from(renderPart(<Leaderboard leaders={leaders} you={you} />));
    variants.set(you, part);
  }
  return part;
}

/** Where the reader's own parts go in the portal's frame (a NUL never comes out of rendered text). */
export const SHARE_LINK_PLACE = '\u0000share-link\u0000';

export const COUNT_PLACE = '\u0000count\u0000';

export const UNLOCKED_PLACE = '\u0000unlocked\u0000';

export const UPCOMING_PLACE = '\u0000upcoming\u0000';

/** The portal's content with a place for each part that is not the same for every reader of a program. */
export function PortalFrame(props: { programName: string }) {
  return (
    <>
      <h1>Your referrals</h1>
      <section class="card" aria-labelledby="share-heading">
        <h2 id="share-heading">Share {props.programName}</h2>
        <p class="muted">Friends who subscribe through your link count as your referrals.</p>
        <CopyLink url={SHARE_LINK_PLACE} label="Your share link" />
      </section>
      <section class="card" aria-labelledby="count-heading">
        <h2 id="count-heading">Referrals</h2>
        {COUNT_PLACE}
      </section>
      <section class="card" aria-labelledby="rewards-heading">
        <h2 id="rewards-heading">Your rewards</h2>
        {UNLOCKED_PLACE}
        {UPCOMING_PLACE}
      </section>
    </>
  );
}

/**
 * The whole portal document of a program name, rendered once and split at the reader's places:
 * `between[i]` goes before the i-th place, `last` after the leaderboard. The program's name comes
 * before every place and no reader's text is in the frame, so each place is the last occurrence
 * of its mark.
 */
export interface PortalTemplate {
  between: readonly [Buffer, Buffer, Buffer, Buffer, Buffer];
  last: Buffer;
}

export const portalTemplates = new Map<string, PortalTemplate>();

export const PORTAL_TEMPLATES = 1_000;

export function portalTemplate(brand: Brand): PortalTemplate {
  const key = JSON.stringify(brand);
  let template = portalTemplates.get(key);
  if (!template) {
    const shell = documentShell({ title: 'Your referrals', brand, copyScript: true });
    const frame = renderPart(<PortalFrame programName={brand.name} />);
    const at = (place: string) => frame.lastIndexOf(place);
    const after = (place: string) => at(place) + place.length;
    const piece = (from: number, to?: number) => Buffer.from(frame.slice(from, to));
    template = {
      between: [
        Buffer.from(shell.before + frame.slice(0, at(SHARE_LINK_PLACE))),
        piece(after(SHARE_LINK_PLACE), at(COUNT_PLACE)),
        piece(after(COUNT_PLACE), at(UNLOCKED_PLACE)),
        piece(after(UNLOCKED_PLACE), at(UPCOMING_PLACE)),
        piece(after(UPCOMING_PLACE)),
      ],
      last: Buffer.from(shell.after),
    };
    if (portalTemplates.size >= PORTAL_TEMPLATES) portalTemplates.clear();
    portalTemplates.set(key, template);
  }
  return template;
}

/** The reader's count and progress: the same for every reader with that count while the milestones list is reused. */
export function CountPart(props: { count: number; next: Portal['next']; milestones: readonly Milestone[] }) {
  const { count, next } = props;
  return (
    <>
      <p class="stat">{count}</p>
      <p class="muted">
        {count === 1 ? 'friend has subscribed' : 'friends have subscribed'} through your link.
      </p>
      {next ? (
        <div class="field">
          <label for="progress">
            {next.remaining} more {next.remaining === 1 ? 'referral' : 'referrals'} to unlock{' '}
            <strong>{next.name}</strong>
          </label>
          <progress id="progress" max={next.needed} value={count}>
            {count} of {next.needed}
          </progress>
        </div>
      ) : props.milestones.length > 0 ? (
        <p class="success">You have unlocked every reward. Thank you!</p>
      ) : null}
    </>
  );
}

export const countParts = new WeakMap<readonly Milestone[], Map<number, Buffer>>();

/** Counts kept per milestones list at most. */
export const COUNT_VARIANTS = 1_000;

/** The count part by count: what it shows follows from the count and the (cached) milestones alone. */
export function countPart(view: Portal): Buffer {
  let variants = countParts.get(view.milestones);
  if (!variants) {
    variants = new Map();
    countParts.set(view.milestones, variants);
  }
  const count = view.subscriber.referrals_count;
  let part = variants.get(count);
  if (part === undefined) {
    part = Buffer.from(renderPart(<CountPart count={count} next={view.next} milestones={view.milestones} />));
    if (variants.size < COUNT_VARIANTS) variants.set(count, part);
  }
  return part;
}

export function UnlockedRewards(props: { unlocked: Portal['subscriber']['reward'] }) {
  if (props.unlocked.length === 0) return <p class="muted">No rewards unlocked yet.</p>;
  return (
    <ul class="rewards">
      {props.unlocked.map((reward) => (
        <li key={reward.id}>
          <strong>{reward.name}</strong>
          {reward.description ? <p>{reward.description}</p> : null}
          <FulfilmentValue
            type={reward.fulfillment_type}
            value={reward.fulfillment_value}
            name={reward.name}
          />
        </li>
      ))}
    </ul>
  );
}

export const NO_REWARDS = Buffer.from(renderPart(<UnlockedRewards unlocked={[]} />));

/**
 * The whole portal document as bytes: the program's template, and in its places the reader's share
 * link (escaped as the renderer escapes an attribute), count part and unlocked rewards (rendered
 * now, unless none) and the program's cached parts — the same bytes as rendering it in one piece.
 */
export function portalDocument(view: Portal): Buffer {
  const { between, last } = portalTemplate(view.brand);
  const unlocked = view.subscriber.reward;
  return Buffer.concat([
    between[0],
    Buffer.from(escapeText(view.subscriber.share_link)),
    between[1],
    countPart(view),
    between[2],
    unlocked.length === 0 ? NO_REWARDS : Buffer.from(renderPart(<UnlockedRewards unlocked={unlocked} />)),
    between[3],
    upcomingPart(view.milestones, unlocked),
    between[4],
    view.leaderboard ? boardPart(view.leaderboard.leaders, view.leaderboard.you) : NO_PART,
    last,
  ]);
}
