/**
 * Allowed email domains: `GET`/`POST /realm/domains` and `PATCH`/`DELETE /realm/domains/{domain}`
 * (https://zulip.com/api/get-realm-domains and neighbours), the `realm_domains` events and register
 * state.
 *
 * As in Zulip (zerver/views/realm_domains.py): any user may list them; changes need an owner from
 * feature level 143 (an administrator before); a new domain is trimmed, lowercased and checked as
 * `validate_domain` does, and may not be listed twice; an unknown domain is "No entry found for
 * domain ...".
 */
import { featureLevels } from '../../zulip/feature-levels.js';
import type { RealmDomain } from '../../zulip/model/realm-domains.js';
import { activeUserIds, requireRealmAdmin, requireRealmOwner } from '../admin.js';
import type { Route, RouteContext, StateContext } from '../context.js';
import { badRequest, missingArgument } from '../errors.js';
import type { Store } from '../store.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';

/** Zulip's validate_domain: the reason a domain is refused, or null. */
export function domainError(domain: string): string | null {
  if (domain.length === 0) return "Domain can't be empty.";
  if (!domain.includes('.')) return 'Domain must have at least one dot (.)';
  if (domain.length > 255) return 'Domain is too long';
  if (domain.startsWith('.') || domain.endsWith('.')) return 'Domain cannot start or end with a dot (.)';
  for (const label of domain.split('.')) {
    if (label === '') return "Consecutive '.' are not allowed.";
    if (label.startsWith('-') || label.endsWith('-')) return "Subdomains cannot start or end with a '-'.";
    if (!/^[a-z0-9-]*$/.test(label)) return "Domain can only have letters, numbers, '.' and '-'s.";
  }
  return null;
}

export function realmDomainsOf(store: Store): RealmDomain[] {
  return store.realmDomains.map(({ domain, allow_subdomains }) => ({ domain, allow_subdomains }));
}

function requireOwnerRule(ctx: RouteContext): void {
  // TODO(server-6): realmDomainsOwnerOnly (143); drop the older branch once every supported server has it.
  if (ctx.settings.featureLevel >= featureLevels.realmDomainsOwnerOnly) requireRealmOwner(ctx);
  else requireRealmAdmin(ctx);
}

/** `allow_subdomains` is `Json[bool]` in Zulip's views. */
function allowSubdomains(ctx: RouteContext): boolean {
  const value = ctx.params.optJson('allow_subdomains');
  if (value === undefined) throw missingArgument('allow_subdomains');
  if (typeof value !== 'boolean') throw badRequest('allow_subdomains is not a boolean');
  return value;
}

function accessDomain(ctx: RouteContext): RealmDomain & { id: number } {
  const domain = ctx.path.domain!;
  const entry = ctx.store.realmDomains.find((d) => d.domain === domain);
  if (!entry) throw badRequest(`No entry found for domain ${domain}.`);
  return entry;
}

function notify(ctx: RouteContext, event: Record<string, unknown>): void {
  ctx.events.notify(activeUserIds(ctx.store), { type: 'realm_domains', ...event });
}

/** https://zulip.com/api/add-realm-domain */
function add(ctx: RouteContext): Record<string, unknown> {
  requireOwnerRule(ctx);
  const domain = ctx.params.str('domain').trim().toLowerCase();
  const allow = allowSubdomains(ctx);
  const error = domainError(domain);
  if (error) throw badRequest(`Invalid domain: ${error}`);
  if (ctx.store.realmDomains.some((d) => d.domain === domain)) {
    throw badRequest(`The domain ${domain} is already a part of your organization.`);
  }
  const entry = { id: ctx.store.nextId('realm_domain'), domain, allow_subdomains: allow };
  ctx.store.realmDomains.push(entry);
  notify(ctx, { op: 'add', realm_domain: { domain, allow_subdomains: allow } });
  return { new_domain: [entry.id, domain] };
}

/** https://zulip.com/api/patch-realm-domain */
function patch(ctx: RouteContext): Record<string, unknown> {
  requireOwnerRule(ctx);
  const allow = allowSubdomains(ctx);
  const entry = accessDomain(ctx);
  entry.allow_subdomains = allow;
  notify(ctx, { op: 'change', realm_domain: { domain: entry.domain, allow_subdomains: allow } });
  return {};
}

/** https://zulip.com/api/delete-realm-domain */
function remove(ctx: RouteContext): Record<string, unknown> {
  requireOwnerRule(ctx);
  const entry = accessDomain(ctx);
  ctx.store.realmDomains = ctx.store.realmDomains.filter((d) => d !== entry);
  notify(ctx, { op: 'remove', domain: entry.domain });
  return {};
}

export const routes: Route[] = [
  { operation: ops.getRealmDomains, handler: (ctx) => ({ domains: realmDomainsOf(ctx.store) }) },
  { operation: ops.addRealmDomain, handler: add },
  { operation: ops.patchRealmDomain, handler: patch },
  { operation: ops.deleteRealmDomain, handler: remove },
];

/** The `realm_domains` fetch type of `POST /register`. */
export function initialState(ctx: StateContext): Record<string, unknown> {
  return ctx.wants('realm_domains') ? { realm_domains: realmDomainsOf(ctx.store) } : {};
}
