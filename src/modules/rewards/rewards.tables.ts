import type { Generated } from 'kysely';

/** Tables of newsletter rewards (migration 0014). */

export interface NewsletterRewardsTable {
  id: Generated<number>;
  program_id: number;
  name: string;
  description: string;
  fulfillment_type: string;
  fulfillment_value: string;
  subscriber_count: number;
  times_triggered: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface SubscriberRewardsTable {
  program_id: number;
  subscriber_id: number;
  reward_id: number;
  created_at: string;
}

declare module '../../db/tables.ts' {
  interface DB {
    newsletter_rewards: NewsletterRewardsTable;
    subscriber_rewards: SubscriberRewardsTable;
  }
}
