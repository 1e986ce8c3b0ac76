/** Partners' labels for reports and their export (issue 26), read by the reports module. */
export { partnerLabels, partnerRows } from './partners.reports.repository.ts';
