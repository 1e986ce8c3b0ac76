import type { Selectable } from 'kysely';
import type { PartnersTable } from '../../db/domain-tables.ts';

export type PartnerRow = Selectable<PartnersTable>;
