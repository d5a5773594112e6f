/**
 * Wire types for the organization's allowed email domains (https://zulip.com/api/get-realm-domains),
 * snake_case as sent: with "restrict account creation to these domains", only addresses in them
 * may join or change their email to.
 */

/** One allowed domain, as `GET /realm/domains`, the register state and `realm_domains` events send it. */
export interface RealmDomain {
  /** Lowercase, e.g. `example.com`. */
  domain: string;
  /** Whether addresses at subdomains (`x.example.com`) are allowed too. */
  allow_subdomains: boolean;
}

/** `GET /realm/domains` success body. */
export interface GetRealmDomainsResult {
  domains: RealmDomain[];
}

/** `POST /realm/domains` success body: the new entry's ID and its domain as stored (trimmed, lowercased). */
export interface AddRealmDomainResult {
  new_domain: [number, string];
}
