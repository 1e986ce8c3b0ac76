import type { QueryOf, Transport } from '../transport.ts';

/** Figures over time and top performers (`/v1/reports/…`). */
export function reports(t: Transport) {
  return {
    /** One row per day, week or month of the range, every bucket present; money per currency. */
    timeseries: (query: QueryOf<'/v1/reports/timeseries', 'get'>) =>
      t.read(() => t.api.GET('/v1/reports/timeseries', { params: { query } })).then((answer) => answer.data),
    /** Partners, links, referrers or promotion codes ranked by a figure over a range. */
    top: (query: QueryOf<'/v1/reports/top', 'get'>) =>
      t.read(() => t.api.GET('/v1/reports/top', { params: { query } })).then((answer) => answer.data),
  };
}
