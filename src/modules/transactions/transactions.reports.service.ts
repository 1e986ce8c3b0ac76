/** Sales figures for reports and the transactions export (issue 26), read by the reports module. */
export {
  countSales,
  type SalesRanking,
  salesBuyers,
  sumRevenue,
  topSaleOwners,
  transactionRows,
} from './transactions.reports.repository.ts';
