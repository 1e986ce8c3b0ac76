import { type Static, Type } from 'typebox';
import { ListQuery } from '../../http/list-query.ts';
import { BooleanLike, Paginated, Success } from '../../http/schemas.ts';
import { ReferralLink } from '../referral-links/referral-links.schemas.ts';
import { PartnerRef, PartnerRefInput } from './partners.schemas.ts';

/** Wire shapes of partner referral links and link domains. */

export const LinkDomain = Type.Object(
  {
    id: Type.Union([Type.String(), Type.Null()], { description: 'null for the default domain' }),
    domain: Type.String(),
    url: Type.String(),
    is_additional: Type.Boolean(),
  },
  { title: 'LinkDomain' },
);

const LinkKey = Type.String({ minLength: 1, maxLength: 255, pattern: '^[^\\s/?#&]+$' });

export const CreatePartnerLinkBody = Type.Object(
  {
    key: LinkKey,
    partner: PartnerRefInput,
    domain_id: Type.Optional(
      Type.Union([Type.String({ pattern: '^\\d+$' }), Type.Integer({ minimum: 1 })], {
        'x-error': 'invalid',
      }),
    ),
    is_additional: Type.Optional(BooleanLike),
  },
  { title: 'CreatePartnerLinkBody' },
);
export type CreatePartnerLinkBody = Static<typeof CreatePartnerLinkBody>;

export const UpdatePartnerLinkBody = Type.Object({ key: LinkKey }, { title: 'UpdatePartnerLinkBody' });
export type UpdatePartnerLinkBody = Static<typeof UpdatePartnerLinkBody>;

export const LinkIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });

export const LinksQuery = ListQuery('standard');
export const DomainsQuery = ListQuery('domains');

export const SearchPartnerLinksQuery = ListQuery('standard', {
  id: Type.Optional(Type.String()),
  key: Type.Optional(Type.String()),
  partner: Type.Optional(Type.Partial(PartnerRef)),
});
export type SearchPartnerLinksQuery = Static<typeof SearchPartnerLinksQuery>;

export const LinkResponse = Success(ReferralLink);
export const LinkArrayResponse = Success(Type.Array(ReferralLink));
export const LinkListResponse = Paginated(ReferralLink);
export const DomainArrayResponse = Success(Type.Array(LinkDomain));
