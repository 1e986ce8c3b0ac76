/**
 * What a sale does, decided before anything is written, by concept: the figures every sale moves
 * (sale-figures.ts), affiliate sales (affiliate-sales.ts), refer-a-friend sales
 * (referral-sales.ts) and refunds (refunds.ts). This file gathers them for the modules.
 */
export * from './affiliate-sales.ts';
export * from './referral-sales.ts';
export * from './refunds.ts';
export * from './sale-figures.ts';
