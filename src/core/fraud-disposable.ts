import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';

/**
 * Disposable e-mail domains come from a maintained package that ships its list as data, never a
 * hand-written list. The package's own `isDisposableEmailDomain` builds a new Set of thousands of
 * entries on every call, so the set is built once, on first use, and kept for the process.
 */
let domains: ReadonlySet<string> | undefined;

/**
 * Whether a domain (lower case) is disposable: the domain itself or any parent of it, since such
 * services hand out random subdomains of one listed name.
 */
export function isDisposableDomain(domain: string): boolean {
  domains ??= disposableEmailBlocklistSet();
  const labels = domain.split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    if (domains.has(labels.slice(i).join('.'))) return true;
  }
  return false;
}
