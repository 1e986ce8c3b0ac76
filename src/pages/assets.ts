import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { accentOfFileName, accentStylesheet } from '../core/branding.ts';
import { AppError } from '../core/errors.ts';

/**
 * The page layer's static assets, served by Vouch itself so the Content-Security-Policy can allow
 * `'self'` and nothing inline. Each URL carries a digest of its content: cached for a year,
 * replaced on change.
 */

const STYLESHEET = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5260; --line: #d0d5dd; --bg: #f6f7f9;
  --card: #ffffff; --accent: #1d4ed8; --accent-ink: #ffffff; --ok: #166534; --error: #b42318; }
* { box-sizing: border-box; }
html { font-size: 100%; -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 1rem/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); text-underline-offset: 0.15em; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -10000px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--card); padding: 0.5rem 1rem; z-index: 1; }
header.site { background: var(--card); border-bottom: 1px solid var(--line); }
header.site .bar { max-width: 40rem; margin: 0 auto; padding: 0.75rem 1rem; display: flex; flex-wrap: wrap;
  gap: 0.5rem 1.5rem; align-items: center; justify-content: space-between; }
header.site p { margin: 0; font-weight: 600; color: var(--muted); }
header.site p.brand { display: flex; align-items: center; gap: 0.6rem; color: var(--ink); }
.logo-preview img { max-height: 4rem; max-width: 100%; display: block; }
input[type=file] { font: inherit; max-width: 100%; }
header.site p.brand img { height: 2.25rem; width: auto; max-width: 10rem; object-fit: contain; }
header.site.wide .bar, main.wide, footer.site.wide { max-width: 64rem; }
nav.portal ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 0; padding: 0; align-items: center; }
nav.portal form { margin: 0; }
nav.portal button { min-height: 2.25rem; padding: 0.3rem 0.8rem; }
[aria-current=page] { font-weight: 700; text-decoration: none; color: var(--ink); }
main { max-width: 40rem; margin: 0 auto; padding: 1.5rem 1rem 0.5rem; }
h1 { font-size: 1.75rem; line-height: 1.25; margin: 0 0 0.75rem; }
h2 { font-size: 1.2rem; margin: 0 0 0.75rem; }
h3 { font-size: 1rem; margin: 1.25rem 0 0.5rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 0.75rem; padding: 1.25rem;
  margin: 0 0 1.25rem; }
.lead { color: var(--muted); margin-top: 0; }
.field { margin: 0 0 1rem; }
.field label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
.field .hint { display: block; color: var(--muted); font-size: 0.9rem; }
input[type=text], input[type=email], input[type=url], input[type=password], select, textarea { width: 100%; font: inherit; padding: 0.6rem 0.75rem;
  border: 1px solid #7b8494; border-radius: 0.5rem; background: #fff; color: var(--ink); }
input[aria-invalid=true] { border-color: var(--error); }
.check { display: flex; gap: 0.6rem; align-items: flex-start; }
.check input { width: 1.25rem; height: 1.25rem; margin-top: 0.15rem; flex: none; }
.check label { font-weight: 400; }
.error { color: var(--error); font-weight: 600; margin: 0.25rem 0 0; }
.notice { border-left: 4px solid var(--error); padding: 0.5rem 0.75rem; background: #fef3f2; margin: 0 0 1rem; }
.success { border-left: 4px solid var(--ok); padding: 0.5rem 0.75rem; background: #ecfdf3; margin: 0 0 1rem; }
button, .button { display: inline-block; font: inherit; font-weight: 600; padding: 0.6rem 1.1rem; border-radius: 0.5rem;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-ink); cursor: pointer;
  text-decoration: none; min-height: 2.75rem; }
button.secondary { background: #fff; color: var(--accent); }
.copy { display: flex; gap: 0.5rem; flex-wrap: wrap; }
.copy input { flex: 1 1 16rem; }
.hp { position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden; }
.stat { font-size: 2.25rem; font-weight: 700; line-height: 1.1; margin: 0; }
progress { width: 100%; height: 1rem; accent-color: var(--accent); }
ol.board, ul.rewards { padding-left: 1.5rem; margin: 0; }
ol.board li, ul.rewards li { padding: 0.35rem 0; border-bottom: 1px solid var(--line); }
ul.rewards p { margin: 0.2rem 0 0; }
.status { margin: 0.35rem 0 0; min-height: 1.5em; }
ol.board li:last-child, ul.rewards li:last-child { border-bottom: 0; }
.board .you { font-weight: 700; }
.muted { color: var(--muted); }
dl.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(9.5rem, 1fr)); gap: 0.75rem; margin: 0; }
dl.figures div { border: 1px solid var(--line); border-radius: 0.5rem; padding: 0.75rem; }
dl.figures dt { color: var(--muted); font-size: 0.9rem; }
dl.figures dd { margin: 0.15rem 0 0; font-size: 1.35rem; font-weight: 700; }
dl.figures dd ul { list-style: none; margin: 0; padding: 0; }
figure { margin: 0; }
fieldset.field { border: 0; padding: 0; }
fieldset.field legend { font-weight: 600; margin-bottom: 0.25rem; padding: 0; }
fieldset .check { margin: 0.35rem 0; }
input[aria-invalid=true], select[aria-invalid=true], textarea[aria-invalid=true] { border-color: var(--error); }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); gap: 0 1.25rem; }
.scroll { overflow-x: auto; }
dl.figures + .scroll { margin-top: 1.25rem; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.5rem; }
th, td { text-align: left; padding: 0.4rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
svg.chart { width: 100%; height: 10rem; display: block; }
svg.chart rect { fill: var(--accent); }
svg.chart line { stroke: var(--line); }
.chart-axis { display: flex; justify-content: space-between; color: var(--muted); font-size: 0.85rem; }
.chart-figure { margin: 0 0 1.25rem; }
.chart-figure figcaption { margin-bottom: 0.35rem; }
.chart-frame { display: flex; gap: 0.4rem; }
.chart-frame svg.chart { flex: 1; min-width: 0; }
.chart-y { display: flex; flex-direction: column; justify-content: space-between; color: var(--muted);
  font-size: 0.8rem; text-align: right; min-width: 2.5rem; }
.chart-figure .chart-axis { padding-left: 2.9rem; }
.chart-table summary { cursor: pointer; color: var(--accent); font-size: 0.9rem; margin-top: 0.25rem; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); gap: 0 1.5rem; }
nav.console ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 0; padding: 0; align-items: center; }
nav.console form { margin: 0; }
nav.console button { min-height: 2.25rem; padding: 0.3rem 0.8rem; }
nav.tabs ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 0.5rem; margin: 0 0 1rem; padding: 0; }
nav.tabs a { display: inline-block; padding: 0.3rem 0.75rem; border: 1px solid var(--line); border-radius: 999px;
  text-decoration: none; background: var(--card); }
nav.tabs a[aria-current=page] { background: var(--ink); color: #fff; border-color: var(--ink); }
.toolbar { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: flex-end; margin: 0 0 1rem; }
.toolbar .field { margin: 0; flex: 1 1 14rem; }
form.inline { display: inline; margin: 0; }
button.small, .button.small { min-height: 2.25rem; padding: 0.3rem 0.8rem; font-size: 0.9rem; }
td .actions { gap: 0.4rem; flex-wrap: nowrap; }
.badge { display: inline-block; padding: 0.05rem 0.5rem; border-radius: 999px; font-size: 0.85rem;
  border: 1px solid var(--line); background: var(--bg); }
.badge.pending { background: #fffaeb; border-color: #f5c451; }
.badge.approved, .badge.active { background: #ecfdf3; border-color: #75e0a7; }
.badge.denied, .badge.archived, .badge.rejected { background: #fef3f2; border-color: #fda29b; }
dl.figures dd.growth { font-size: 0.85rem; font-weight: 400; }
form > .scroll + .field { margin-top: 1rem; }
@media (max-width: 40rem) {
  table.stack thead { position: absolute; left: -10000px; }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; }
  table.stack tr { border-bottom: 1px solid var(--line); padding: 0.5rem 0; }
  table.stack td { border: 0; padding: 0.15rem 0; }
  table.stack td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
  table.stack td.num { text-align: left; }
  table.stack caption { display: block; }
}
.card a { overflow-wrap: anywhere; }
.events { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); gap: 0 1rem; }
ul.changes { margin: 0; padding-left: 1rem; font-size: 0.9rem; overflow-wrap: anywhere; }
fieldset.card { min-width: 0; }
fieldset.card > legend { float: left; width: 100%; padding: 0; margin: 0 0 0.25rem; }
fieldset.card > legend + * { clear: both; }
.pager { display: flex; gap: 1rem; margin-top: 0.75rem; }
ul.programs { list-style: none; padding: 0; margin: 0; }
ul.programs li { padding: 0.6rem 0; border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap;
  justify-content: space-between; gap: 0.25rem 1rem; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: center; }
footer.site { max-width: 40rem; margin: 0 auto; padding: 0 1rem 2rem; color: var(--muted); font-size: 0.875rem; }
@media (max-width: 30rem) { h1 { font-size: 1.5rem; } .card { padding: 1rem; } main { padding-top: 1rem; } }
`;

/** The copy button: shown only when scripts run, it copies the share link and says so. */
const COPY_SCRIPT = `
document.querySelectorAll('[data-copy]').forEach(function (button) {
  var input = document.getElementById(button.getAttribute('data-copy'));
  var status = document.getElementById(button.getAttribute('data-status'));
  if (!input) return;
  button.hidden = false;
  button.addEventListener('click', function () {
    var done = function () { if (status) status.textContent = 'Link copied.'; button.textContent = 'Copied'; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, function () { input.select(); });
    } else {
      input.select();
      try { if (document.execCommand('copy')) done(); } catch (e) {}
    }
  });
});
`;

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

export const assets = {
  stylesheet: `/assets/vouch.${digest(STYLESHEET)}.css`,
  copyScript: `/assets/copy.${digest(COPY_SCRIPT)}.js`,
} as const;

/** Serves the assets; public, hidden from the OpenAPI document. */
export async function pageAssets(app: FastifyInstance) {
  const serve = (url: string, type: string, body: string) =>
    app.get(url, {
      config: { auth: 'public' },
      schema: { hide: true },
      handler: async (_request, reply) =>
        reply
          .header('content-type', type)
          .header('cache-control', 'public, max-age=31536000, immutable')
          .header('x-content-type-options', 'nosniff')
          .send(body),
    });
  serve(assets.stylesheet, 'text/css; charset=utf-8', STYLESHEET);
  serve(assets.copyScript, 'text/javascript; charset=utf-8', COPY_SCRIPT);
  // A program's brand colour: the stylesheet is named by the colour, so it never changes.
  app.get<{ Params: { file: string } }>('/assets/accent/:file', {
    config: { auth: 'public' },
    schema: { hide: true },
    handler: async (request, reply) => {
      const accent = accentOfFileName(request.params.file);
      if (!accent) throw new AppError('not_found', 'Not found.');
      return reply
        .header('content-type', 'text/css; charset=utf-8')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .send(accentStylesheet(accent));
    },
  });
}
