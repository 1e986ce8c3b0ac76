/** Commission and reward figures for reports and the commissions export (issue 26), read by the reports module. */
export {
  commissionRows,
  countRewards,
  sumCommissions,
  topCommissionOwners,
} from './commissions.reports.repository.ts';
