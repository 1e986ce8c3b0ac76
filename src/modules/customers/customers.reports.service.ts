/** Customers' figures for reports and their export (issue 26), read by the reports module. */
export {
  countCustomers,
  customerRows,
  referrerLabels,
  topSignupOwners,
} from './customers.reports.repository.ts';
