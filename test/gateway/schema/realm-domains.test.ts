/**
 * Allowed email domains end to end: GraphQL → gateway → REST → emulator. The query and the three
 * mutations, their upstream calls, the server's codes and the arguments refused before any call.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness } from '../../helpers/harness.js';

const OWNER = demoUser('desdemona').email;
const IAGO = demoUser('iago').email;
const HAMLET = demoUser('hamlet').email;

function harness() {
  const h = setupHarness();
  return { h, store: h.emulator.store, calls: () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`) };
}

describe('realm domains', () => {
  it('adds a domain, returning it as stored from one call, and lists it to any user', async () => {
    const { h, calls } = harness();
    const added = await h.gql(
      'mutation { addRealmDomain(domain: " Example.COM", allowSubdomains: true) { realmDomain { domain allowSubdomains } } }',
      {},
      { as: OWNER },
    );
    expect(added).toMatchObject({ data: { addRealmDomain: { realmDomain: { domain: 'example.com', allowSubdomains: true } } } });
    expect(calls()).toEqual(['POST realm/domains']);
    h.resetUpstreamRequests();
    const list = await h.gql('{ realmDomains { domain allowSubdomains } }', {}, { as: HAMLET });
    expect(list.data).toEqual({ realmDomains: [{ domain: 'example.com', allowSubdomains: true }] });
    expect(calls()).toEqual(['GET realm/domains']);
  });

  it('updates and deletes a domain, one call each', async () => {
    const { h, calls, store } = harness();
    await h.gql('mutation { addRealmDomain(domain: "example.com", allowSubdomains: false) { realmDomain { domain } } }', {}, { as: OWNER });
    h.resetUpstreamRequests();
    const updated = await h.gql(
      'mutation { updateRealmDomain(domain: "example.com", allowSubdomains: true) { realmDomain { domain allowSubdomains } } }',
      {},
      { as: OWNER },
    );
    expect(updated.data).toEqual({ updateRealmDomain: { realmDomain: { domain: 'example.com', allowSubdomains: true } } });
    const deleted = await h.gql('mutation { deleteRealmDomain(domain: "example.com") { domain } }', {}, { as: OWNER });
    expect(deleted.data).toEqual({ deleteRealmDomain: { domain: 'example.com' } });
    expect(calls()).toEqual(['PATCH realm/domains/example.com', 'DELETE realm/domains/example.com']);
    expect(store.realmDomains).toEqual([]);
  });

  it('passes on UNAUTHORIZED_PRINCIPAL for an administrator and BAD_REQUEST for an invalid or unknown domain', async () => {
    const { h } = harness();
    const admin = await h.gql('mutation { addRealmDomain(domain: "example.com", allowSubdomains: false) { realmDomain { domain } } }', {}, { as: IAGO });
    expect(admin.errors?.[0]).toMatchObject({
      message: 'Must be an organization owner',
      extensions: { code: 'UNAUTHORIZED_PRINCIPAL', route: 'add-realm-domain' },
    });
    const invalid = await h.gql('mutation { addRealmDomain(domain: "localhost", allowSubdomains: false) { realmDomain { domain } } }', {}, { as: OWNER });
    expect(invalid.errors?.[0]).toMatchObject({ message: 'Invalid domain: Domain must have at least one dot (.)', extensions: { code: 'BAD_REQUEST' } });
    const unknown = await h.gql('mutation { deleteRealmDomain(domain: "nope.com") { domain } }', {}, { as: OWNER });
    expect(unknown.errors?.[0]).toMatchObject({ message: 'No entry found for domain nope.com.', extensions: { code: 'BAD_REQUEST', route: 'delete-realm-domain' } });
  });

  it('refuses an empty domain before any upstream call', async () => {
    const { h, calls } = harness();
    for (const query of [
      'mutation { addRealmDomain(domain: " ", allowSubdomains: false) { realmDomain { domain } } }',
      'mutation { updateRealmDomain(domain: "", allowSubdomains: false) { realmDomain { domain } } }',
      'mutation { deleteRealmDomain(domain: "") { domain } }',
    ]) {
      const { errors } = await h.gql(query, {}, { as: OWNER });
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'domain' });
    }
    expect(calls()).toEqual([]);
  });
});
