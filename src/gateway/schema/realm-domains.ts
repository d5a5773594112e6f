/**
 * The organization's allowed email domains: the `realmDomains` query and the `addRealmDomain`,
 * `updateRealmDomain` and `deleteRealmDomain` mutations. https://zulip.com/api/get-realm-domains
 *
 * Changes need an organization owner (an administrator below feature level 143): the server
 * answers UNAUTHORIZED_PRINCIPAL otherwise. Its other refusals (an invalid or already listed
 * domain, an unknown one) are BAD_REQUEST.
 */
import type { RealmDomain } from '../../zulip/model/realm-domains.js';
import { addRealmDomain, deleteRealmDomain, getRealmDomains, patchRealmDomain } from '../../zulip/routes/realm-domains.js';
import { builder } from '../builder.js';
import { badInput } from '../errors.js';

export const RealmDomainRef = builder.objectRef<RealmDomain>('RealmDomain').implement({
  description:
    'An email domain the organization allows when it restricts account creation to listed domains. ' +
    'https://zulip.com/help/restrict-account-creation',
  fields: (t) => ({
    domain: t.exposeString('domain', { description: 'The domain, lowercase (its identifier), e.g. `example.com`.' }),
    allowSubdomains: t.exposeBoolean('allow_subdomains', { description: 'Whether addresses at its subdomains are allowed too.' }),
  }),
});

const RealmDomainPayloadRef = builder.objectRef<RealmDomain>('RealmDomainPayload').implement({
  description: 'An allowed domain that was added or changed.',
  fields: (t) => ({
    realmDomain: t.field({ type: RealmDomainRef, description: 'The domain as the server stored it.', resolve: (d) => d }),
  }),
});

const DeleteRealmDomainPayloadRef = builder.objectRef<{ domain: string }>('DeleteRealmDomainPayload').implement({
  description: 'An allowed domain that was removed.',
  fields: (t) => ({ domain: t.exposeString('domain', { description: 'The removed domain.' }) }),
});

/** The server looks a domain up as given (lowercase); an empty one cannot name an entry. */
function domainArg(domain: string): string {
  const trimmed = domain.trim();
  if (trimmed === '') throw badInput('domain must not be empty', { argument: 'domain' });
  return trimmed;
}

builder.queryField('realmDomains', (t) =>
  t.field({
    zulip: { reaches: ['get-realm-domains'], live: [] },
    type: [RealmDomainRef],
    nullable: true,
    description: 'The email domains the organization allows for new accounts and email changes.',
    resolve: async (_root, _args, ctx) => (await getRealmDomains(ctx.connection)).domains,
  }),
);

builder.mutationFields((t) => ({
  addRealmDomain: t.field({
    zulip: { reaches: ['add-realm-domain'], writes: ['realm_domains'] },
    type: RealmDomainPayloadRef,
    description:
      'Allows an email domain (organization owners; administrators below feature level 143). The server trims and ' +
      'lowercases it. Errors: UNAUTHORIZED_PRINCIPAL; BAD_REQUEST for an invalid domain or one already listed.',
    args: {
      domain: t.arg.string({ required: true, description: 'The domain, e.g. `example.com`.' }),
      allowSubdomains: t.arg.boolean({ required: true, description: 'Whether to allow its subdomains too.' }),
    },
    resolve: async (_root, args, ctx) => {
      const { new_domain } = await addRealmDomain(ctx.connection, { domain: domainArg(args.domain), allowSubdomains: args.allowSubdomains });
      return { domain: new_domain[1], allow_subdomains: args.allowSubdomains };
    },
  }),
  updateRealmDomain: t.field({
    zulip: { reaches: ['patch-realm-domain'], writes: ['realm_domains'] },
    type: RealmDomainPayloadRef,
    description: 'Changes whether an allowed domain\u2019s subdomains are allowed. An unknown domain is BAD_REQUEST.',
    args: {
      domain: t.arg.string({ required: true, description: 'The listed domain (lowercase).' }),
      allowSubdomains: t.arg.boolean({ required: true, description: 'Whether to allow its subdomains.' }),
    },
    resolve: async (_root, args, ctx) => {
      const domain = domainArg(args.domain);
      await patchRealmDomain(ctx.connection, { domain, allowSubdomains: args.allowSubdomains });
      return { domain, allow_subdomains: args.allowSubdomains };
    },
  }),
  deleteRealmDomain: t.field({
    zulip: { reaches: ['delete-realm-domain'], writes: ['realm_domains'] },
    type: DeleteRealmDomainPayloadRef,
    description: 'Removes an allowed domain. An unknown domain is BAD_REQUEST.',
    args: { domain: t.arg.string({ required: true, description: 'The listed domain (lowercase).' }) },
    resolve: async (_root, args, ctx) => {
      const domain = domainArg(args.domain);
      await deleteRealmDomain(ctx.connection, { domain });
      return { domain };
    },
  }),
}));
