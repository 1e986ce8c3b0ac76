/** Links' labels for reports (issue 26), read by the reports module. */
export { linkLabels } from './referral-links.reports.repository.ts';
