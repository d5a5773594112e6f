/**
 * Bindings for the organization's allowed email domains. Changes need an organization owner (an
 * administrator below feature level 143), else UNAUTHORIZED_PRINCIPAL.
 * https://zulip.com/help/restrict-account-creation
 */
import type { SendOptions, ZulipConnection } from '../connection.js';
import * as ops from '../generated/realm-domains.js';
import type { AddRealmDomainResult, GetRealmDomainsResult } from '../model/realm-domains.js';

/** The allowed domains. https://zulip.com/api/get-realm-domains */
export const getRealmDomains = (c: ZulipConnection, call?: SendOptions): Promise<GetRealmDomainsResult> =>
  ops.getRealmDomains(c, {}, call);

/** Allows a domain (the server trims and lowercases it). https://zulip.com/api/add-realm-domain */
export const addRealmDomain = (c: ZulipConnection, p: ops.AddRealmDomainParams, call?: SendOptions): Promise<AddRealmDomainResult> =>
  ops.addRealmDomain(c, p, call);

/** Changes whether a domain's subdomains are allowed. https://zulip.com/api/patch-realm-domain */
export const patchRealmDomain = (c: ZulipConnection, p: ops.PatchRealmDomainParams, call?: SendOptions): Promise<object> =>
  ops.patchRealmDomain(c, p, call);

/** Removes an allowed domain. https://zulip.com/api/delete-realm-domain */
export const deleteRealmDomain = (c: ZulipConnection, p: ops.DeleteRealmDomainParams, call?: SendOptions): Promise<object> =>
  ops.deleteRealmDomain(c, p, call);
