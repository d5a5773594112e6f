/**
 * Linkifiers end to end: GraphQL → gateway → REST → emulator. The query and the four mutations,
 * their upstream calls, the server's errors (mapped by errors.ts), the arguments refused before
 * any call, and the feature-level gates.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { featureLevels } from '../../../src/zulip/feature-levels.js';
import { createHarness, setupHarness } from '../../helpers/harness.js';

const IAGO = demoUser('iago').email;
const HAMLET = demoUser('hamlet').email;
const ISSUE = { pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://github.com/zulip/zulip/issues/{id}' };
const TICKET = { pattern: 'T-(?P<key>[A-Z]+)', urlTemplate: 'https://tickets.example.com/{key}' };

const ADD = /* GraphQL */ `
  mutation ($pattern: String!, $urlTemplate: String!) {
    addLinkifier(pattern: $pattern, urlTemplate: $urlTemplate) { linkifier { zulipId pattern urlTemplate } }
  }
`;

function harness() {
  const h = setupHarness();
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  const add = async (definition: typeof ISSUE) => {
    const { data, errors } = await h.gql<{ addLinkifier: { linkifier: { zulipId: number } } }>(ADD, definition, { as: IAGO });
    expect(errors).toBeUndefined();
    return data!.addLinkifier.linkifier.zulipId;
  };
  return { h, store: h.emulator.store, calls, add };
}

describe('linkifiers', () => {
  it('adds a linkifier, returning it whole from one call, and lists it to any user', async () => {
    const { h, calls, store } = harness();
    const { data, errors } = await h.gql(ADD, ISSUE, { as: IAGO });
    expect(errors).toBeUndefined();
    const id = store.linkifiers[0]!.id;
    expect(data).toEqual({ addLinkifier: { linkifier: { zulipId: id, ...ISSUE } } });
    expect(calls()).toEqual(['GET server_settings', 'POST realm/filters']);
    h.resetUpstreamRequests();
    const list = await h.gql('{ linkifiers { zulipId pattern urlTemplate } }', {}, { as: HAMLET });
    expect(list).toMatchObject({ data: { linkifiers: [{ zulipId: id, ...ISSUE }] } });
    expect(calls()).toEqual(['GET realm/linkifiers']);
  });

  it('updates, reorders and removes', async () => {
    const { h, calls, store, add } = harness();
    const a = await add(ISSUE);
    const b = await add(TICKET);
    h.resetUpstreamRequests();
    const updated = await h.gql(
      'mutation ($id: Long!) { updateLinkifier(id: $id, pattern: "PR(?P<id>[0-9]+)", urlTemplate: "https://x.com/{id}") { linkifier { zulipId pattern urlTemplate } } }',
      { id: a },
      { as: IAGO },
    );
    expect(updated.data).toEqual({ updateLinkifier: { linkifier: { zulipId: a, pattern: 'PR(?P<id>[0-9]+)', urlTemplate: 'https://x.com/{id}' } } });
    expect(calls()).toEqual([`PATCH realm/filters/${a}`]);
    h.resetUpstreamRequests();
    const reordered = await h.gql('mutation ($ids: [Long!]!) { reorderLinkifiers(ids: $ids) { ids linkifiers { zulipId } } }', { ids: [b, a] }, { as: IAGO });
    expect(reordered.data).toEqual({ reorderLinkifiers: { ids: [b, a], linkifiers: [{ zulipId: b }, { zulipId: a }] } });
    expect(calls()).toEqual(['PATCH realm/linkifiers', 'GET realm/linkifiers']);
    h.resetUpstreamRequests();
    const removed = await h.gql('mutation ($id: Long!) { removeLinkifier(id: $id) { linkifierId } }', { id: a }, { as: IAGO });
    expect(removed.data).toEqual({ removeLinkifier: { linkifierId: a } });
    expect(calls()).toEqual([`DELETE realm/filters/${a}`]);
    expect(store.linkifiers.map((l) => l.id)).toEqual([b]);
  });

  it('passes on the server\u2019s codes: UNAUTHORIZED_PRINCIPAL for a member, BAD_REQUEST with the errors map', async () => {
    const { h, store } = harness();
    const refused = await h.gql(ADD, ISSUE, { as: HAMLET });
    expect(refused.errors?.[0]).toMatchObject({
      message: 'Must be an organization administrator',
      extensions: { code: 'UNAUTHORIZED_PRINCIPAL', route: 'add-linkifier' },
    });
    const invalid = await h.gql(ADD, { ...ISSUE, urlTemplate: 'https://x.com/{org}' }, { as: IAGO });
    expect(invalid.errors?.[0]).toMatchObject({
      message: "Group 'org' in URL template is not present in linkifier pattern.",
      extensions: { code: 'BAD_REQUEST', errors: { __all__: ["Group 'org' in URL template is not present in linkifier pattern."] } },
    });
    const missing = await h.gql('mutation { removeLinkifier(id: 999) { linkifierId } }', {}, { as: IAGO });
    expect(missing.errors?.[0]).toMatchObject({ message: 'Linkifier not found.', extensions: { code: 'BAD_REQUEST' } });
    expect(store.linkifiers).toEqual([]);
  });

  it('refuses an empty pattern or template and a repeated ID before any upstream call', async () => {
    const { h, calls, add } = harness();
    const a = await add(ISSUE);
    h.resetUpstreamRequests();
    const empty = await h.gql(ADD, { ...ISSUE, pattern: ' ' }, { as: IAGO });
    expect(empty.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'pattern' });
    const emptyTemplate = await h.gql('mutation { updateLinkifier(id: 1, pattern: "x", urlTemplate: "") { linkifier { zulipId } } }', {}, { as: IAGO });
    expect(emptyTemplate.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'urlTemplate' });
    const repeated = await h.gql('mutation ($ids: [Long!]!) { reorderLinkifiers(ids: $ids) { ids } }', { ids: [a, a] }, { as: IAGO });
    expect(repeated.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'ids' });
    expect(calls()).toEqual([]);
  });

  it('answers UNSUPPORTED_BY_SERVER below feature levels 176 and 202, with no call past server_settings', async () => {
    const old = createHarness({ emulatorSettings: { featureLevel: featureLevels.linkifierUrlTemplate - 1 } });
    try {
      for (const query of ['{ linkifiers { zulipId } }', 'mutation { removeLinkifier(id: 1) { linkifierId } }']) {
        const { errors } = await old.gql(query, {}, { as: IAGO });
        expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 176, featureLevel: 175 });
      }
      expect(old.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
    } finally {
      await old.close();
    }
    const before = createHarness({ emulatorSettings: { featureLevel: featureLevels.reorderLinkifiers - 1 } });
    try {
      const { errors } = await before.gql('mutation { reorderLinkifiers(ids: []) { ids } }', {}, { as: IAGO });
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 202 });
      expect(before.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
    } finally {
      await before.close();
    }
  });
});
