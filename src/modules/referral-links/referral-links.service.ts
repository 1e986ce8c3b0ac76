/**
 * The link store partners and customers share. A link belongs to its owner's module (the
 * partners module for partner links, the customers module for customer links), which applies
 * the rules; these row operations take the caller's database or transaction, so a default link
 * is written in the same transaction as the partner or customer it belongs to.
 */
export {
  defaultCustomerLinksStatement,
  deleteLink,
  findLinkByKey,
  insertLink,
  type LinkOwner,
  type LinkOwnerKind,
  type LinkSearchFilter,
  listLinkDomains,
  listLinksOf,
  listLinksOfMany,
  type NewDefaultCustomerLink,
  renameDefaultLink,
  searchLinks,
  updateLink,
} from './referral-links.repository.ts';
