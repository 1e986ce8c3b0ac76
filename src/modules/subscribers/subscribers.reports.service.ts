/** Subscribers' figures for reports and their export (issue 26), read by the reports module. */
export { countSubscribers, subscriberRows } from './subscribers.reports.repository.ts';
