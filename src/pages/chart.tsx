/**
 * A bar chart drawn on the server: SVG with the largest value and the first and last dates on its
 * axes, no script, and the same figures as a table for screen readers (and anyone who wants the
 * numbers). Values are plain numbers; `format` says them (an amount with its currency, say).
 */

export interface ChartPoint {
  /** The bucket's first day, `YYYY-MM-DD`. */
  date: string;
  value: number;
}

const WIDTH = 600;
const HEIGHT = 160;
const TOP = 8;

export function BarChart(props: {
  id: string;
  title: string;
  points: readonly ChartPoint[];
  format?: (value: number) => string;
}) {
  const { points, id } = props;
  const say = props.format ?? ((value: number) => value.toLocaleString('en-US'));
  const max = Math.max(0, ...points.map((p) => p.value));
  const scale = max > 0 ? (HEIGHT - TOP) / max : 0;
  const slot = WIDTH / Math.max(1, points.length);
  const total = points.reduce((sum, p) => sum + p.value, 0);
  const first = points[0]?.date ?? '';
  const last = points.at(-1)?.date ?? '';
  return (
    <figure class="chart-figure">
      <figcaption id={`${id}-title`}>
        <strong>{props.title}</strong> <span class="muted">{say(total)} in all</span>
      </figcaption>
      <div class="chart-frame">
        <div class="chart-y" aria-hidden="true">
          <span>{max > 0 ? say(max) : ''}</span>
          <span>0</span>
        </div>
        <svg
          class="chart"
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          preserveAspectRatio="none"
          role="img"
          aria-labelledby={`${id}-title ${id}-summary`}
        >
          <title id={`${id}-summary`}>
            {`${props.title} from ${first} to ${last}: ${say(total)} in all, at most ${say(max)} in a day.`}
          </title>
          <line x1="0" y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} />
          <line x1="0" y1={TOP} x2={WIDTH} y2={TOP} />
          {points.map((p, i) => {
            const height = p.value * scale;
            return (
              <rect
                key={p.date}
                x={i * slot + slot * 0.15}
                y={HEIGHT - height}
                width={slot * 0.7}
                height={height}
              >
                <title>{`${p.date}: ${say(p.value)}`}</title>
              </rect>
            );
          })}
        </svg>
      </div>
      <div class="chart-axis" aria-hidden="true">
        <span>{first}</span>
        <span>{last}</span>
      </div>
      <details class="chart-table">
        <summary>Show the figures</summary>
        <div class="scroll">
          <table>
            <caption>{props.title}</caption>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col" class="num">
                  Value
                </th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr key={p.date}>
                  <td>{p.date}</td>
                  <td class="num">{say(p.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
