/** Promotion codes ranked and labelled for reports (issue 26), read by the reports module. */
export { promotionCodeLabels, topRedeemedCodes } from './promotion-codes.reports.repository.ts';
