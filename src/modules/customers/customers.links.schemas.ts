import { type Static, Type } from 'typebox';
import { ListQuery, listLimits } from '../../http/list-query.ts';

const LinkKey = Type.String({ minLength: 1, maxLength: 255, pattern: '^[^/?#\\s]+$' });
const CustomerRef = Type.Partial(
  Type.Object({
    id: Type.String({ maxLength: 255 }),
    key: Type.String({ maxLength: 255 }),
    email: Type.String({ maxLength: 255 }),
  }),
);

export const CreateCustomerReferralLinkBody = Type.Object(
  { key: LinkKey, customer: CustomerRef },
  { title: 'CreateCustomerReferralLinkBody' },
);
export type CreateCustomerReferralLinkBody = Static<typeof CreateCustomerReferralLinkBody>;

export const UpdateCustomerReferralLinkBody = Type.Object(
  { key: LinkKey },
  { title: 'UpdateCustomerReferralLinkBody' },
);
export type UpdateCustomerReferralLinkBody = Static<typeof UpdateCustomerReferralLinkBody>;

export const CustomerReferralLinkParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });

export const SearchCustomerReferralLinksQuery = ListQuery(
  'standard',
  Type.Partial(Type.Object({ id: Type.String(), key: Type.String(), customer: CustomerRef })).properties,
);
export type SearchCustomerReferralLinksQuery = Static<typeof SearchCustomerReferralLinksQuery>;

export const CustomerLinksQuery = Type.Partial(
  Type.Object({
    limit: Type.Integer({ ...listLimits.standard }),
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  }),
);
