import { BarChart, type ChartPoint } from '../../pages/chart.tsx';
import type { ConsoleUser } from './console.accounts.service.ts';
import { ConsoleLayout } from './console.layout.views.tsx';
import type { ConsoleProgram } from './console.programs.service.ts';

/** A program's overview: its figures of the last 30 days with growth, daily charts, its top earners. */

export interface OverviewFigure {
  label: string;
  value: string;
  growth: number | undefined;
}

export interface OverviewChart {
  id: string;
  title: string;
  points: ChartPoint[];
  currency?: string;
}

export interface OverviewView {
  figures: OverviewFigure[];
  charts: OverviewChart[];
  top: { title: string; rows: { name: string; value: string }[] } | undefined;
  links: { label: string; url: string }[];
}

const growthWords = (growth: number) =>
  growth === 0 ? 'no change' : `${growth > 0 ? '+' : ''}${growth}% on the 30 days before`;

/**
 * Each currency's formatter, made once: `toLocaleString` with options builds a new formatter per
 * call (about 40 µs), and a revenue chart says some 60 amounts (2.5 ms a page).
 */
const moneyFormats = new Map<string, Intl.NumberFormat>();
function money(currency: string) {
  let format = moneyFormats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: 2 });
    moneyFormats.set(currency, format);
  }
  const { format: say } = format;
  return say;
}

export function OverviewPage(props: {
  user: ConsoleUser;
  csrf: string;
  program: ConsoleProgram;
  view: OverviewView;
}) {
  const { view, program } = props;
  return (
    <ConsoleLayout
      title={`${program.name} overview`}
      user={props.user}
      csrf={props.csrf}
      program={program}
      section="overview"
    >
      <div class="card">
        <h1>{program.name}</h1>
        <h2>Last 30 days</h2>
        <dl class="figures">
          {view.figures.map((figure) => (
            <div key={figure.label}>
              <dt>{figure.label}</dt>
              <dd>{figure.value}</dd>
              {figure.growth !== undefined ? (
                <dd class="muted growth">{growthWords(figure.growth)}</dd>
              ) : null}
            </div>
          ))}
        </dl>
      </div>
      <div class="card">
        <h2>Per day</h2>
        <div class="charts">
          {view.charts.map((chart) => (
            <BarChart
              key={chart.id}
              id={chart.id}
              title={chart.title}
              points={chart.points}
              {...(chart.currency ? { format: money(chart.currency) } : {})}
            />
          ))}
        </div>
      </div>
      {view.top ? (
        <div class="card">
          <h2>{view.top.title}</h2>
          {view.top.rows.length === 0 ? (
            <p class="muted">No sales in the last 30 days yet.</p>
          ) : (
            <ol class="board">
              {view.top.rows.map((row) => (
                <li key={row.name}>
                  {row.name} <span class="muted">· {row.value}</span>
                </li>
              ))}
            </ol>
          )}
        </div>
      ) : null}
      {view.links.length > 0 ? (
        <div class="card">
          <h2>Links</h2>
          <ul>
            {view.links.map((link) => (
              <li key={link.url}>
                {link.label}: <a href={link.url}>{link.url}</a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </ConsoleLayout>
  );
}
