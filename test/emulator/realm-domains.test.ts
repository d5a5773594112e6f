/**
 * The emulator's allowed-domain endpoints, driven through src/zulip/routes/realm-domains.ts: the
 * owner rule (administrators below feature level 143), validate_domain, duplicates, unknown
 * domains, events and the register state.
 */
import { describe, expect, it } from 'vitest';
import type { EmulatorSettings } from '../../src/emulator/context.js';
import { featureLevels } from '../../src/zulip/feature-levels.js';
import { addRealmDomain, deleteRealmDomain, getRealmDomains, patchRealmDomain } from '../../src/zulip/routes/realm-domains.js';
import { caughtApiError, setupEmulator } from '../helpers/emulator.js';

function setup(settings: Partial<EmulatorSettings> = {}) {
  const t = setupEmulator({ eventTypes: ['realm_domains'], settings });
  return { ...t, owner: t.as('desdemona') };
}

describe('realm domains', () => {
  it('adds a trimmed, lowercased domain with its ID, and lists it to any user', async () => {
    const { owner, as } = setup();
    const { new_domain } = await addRealmDomain(owner, { domain: '  Example.COM ', allowSubdomains: false });
    expect(new_domain).toEqual([expect.any(Number), 'example.com']);
    await addRealmDomain(owner, { domain: 'zulip.org', allowSubdomains: true });
    expect(await getRealmDomains(as('polonius'))).toMatchObject({
      domains: [
        { domain: 'example.com', allow_subdomains: false },
        { domain: 'zulip.org', allow_subdomains: true },
      ],
    });
  });

  it('refuses changes from non-owners with UNAUTHORIZED_PRINCIPAL, administrators included', async () => {
    const { owner, as, store } = setup();
    await addRealmDomain(owner, { domain: 'example.com', allowSubdomains: false });
    for (const login of ['iago', 'hamlet']) {
      const conn = as(login);
      for (const attempt of [
        addRealmDomain(conn, { domain: 'other.com', allowSubdomains: false }),
        patchRealmDomain(conn, { domain: 'example.com', allowSubdomains: true }),
        deleteRealmDomain(conn, { domain: 'example.com' }),
      ]) {
        const e = await caughtApiError(attempt);
        expect([e.code, e.message]).toEqual(['UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner']);
      }
    }
    expect(store.realmDomains.map((d) => [d.domain, d.allow_subdomains])).toEqual([['example.com', false]]);
  });

  it('lets administrators change them below feature level 143, members still not', async () => {
    const { as, store } = setup({ featureLevel: featureLevels.realmDomainsOwnerOnly - 1 });
    await addRealmDomain(as('iago'), { domain: 'example.com', allowSubdomains: false });
    const e = await caughtApiError(addRealmDomain(as('hamlet'), { domain: 'other.com', allowSubdomains: false }));
    expect([e.code, e.message]).toEqual(['UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
    expect(store.realmDomains.map((d) => d.domain)).toEqual(['example.com']);
  });

  it('validates domains as Zulip does and refuses a listed one', async () => {
    const { owner, store } = setup();
    const cases: [string, string][] = [
      ['', "Domain can't be empty."],
      ['localhost', 'Domain must have at least one dot (.)'],
      ['.example.com', 'Domain cannot start or end with a dot (.)'],
      ['a..com', "Consecutive '.' are not allowed."],
      ['-a.com', "Subdomains cannot start or end with a '-'."],
      ['a_b.com', "Domain can only have letters, numbers, '.' and '-'s."],
    ];
    for (const [domain, reason] of cases) {
      const e = await caughtApiError(addRealmDomain(owner, { domain, allowSubdomains: false }));
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', `Invalid domain: ${reason}`]);
    }
    await addRealmDomain(owner, { domain: 'example.com', allowSubdomains: false });
    const twice = await caughtApiError(addRealmDomain(owner, { domain: 'EXAMPLE.com', allowSubdomains: true }));
    expect(twice.message).toBe('The domain example.com is already a part of your organization.');
    expect(store.realmDomains).toHaveLength(1);
  });

  it('changes and removes, with "No entry found" for an unknown domain', async () => {
    const { owner, store } = setup();
    await addRealmDomain(owner, { domain: 'example.com', allowSubdomains: false });
    await patchRealmDomain(owner, { domain: 'example.com', allowSubdomains: true });
    expect(store.realmDomains[0]!.allow_subdomains).toBe(true);
    for (const attempt of [patchRealmDomain(owner, { domain: 'nope.com', allowSubdomains: true }), deleteRealmDomain(owner, { domain: 'nope.com' })]) {
      const e = await caughtApiError(attempt);
      expect([e.code, e.message]).toEqual(['BAD_REQUEST', 'No entry found for domain nope.com.']);
    }
    await deleteRealmDomain(owner, { domain: 'example.com' });
    expect(store.realmDomains).toEqual([]);
  });

  it('sends add, change and remove events to every active user, and serves the list at register', async () => {
    const { owner, listen, as } = setup();
    const drain = await listen('hamlet');
    await addRealmDomain(owner, { domain: 'example.com', allowSubdomains: false });
    await patchRealmDomain(owner, { domain: 'example.com', allowSubdomains: true });
    await deleteRealmDomain(owner, { domain: 'example.com' });
    const events = (await drain()).map(({ id: _id, ...e }) => e);
    expect(events).toEqual([
      { type: 'realm_domains', op: 'add', realm_domain: { domain: 'example.com', allow_subdomains: false } },
      { type: 'realm_domains', op: 'change', realm_domain: { domain: 'example.com', allow_subdomains: true } },
      { type: 'realm_domains', op: 'remove', domain: 'example.com' },
    ]);
    await addRealmDomain(owner, { domain: 'zulip.org', allowSubdomains: true });
    const state = await as('hamlet').request<{ realm_domains: unknown[] }>('register', 'POST', 'register', {});
    expect(state.realm_domains).toEqual([{ domain: 'zulip.org', allow_subdomains: true }]);
  });
});
