/**
 * Navigation views end to end: GraphQL → gateway → REST → emulator. The query, the three
 * mutations, their upstream calls, the errors the server answers, the input refused before any
 * call, and the feature-level gate.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness, type HarnessOptions } from '../../helpers/harness.js';

const HAMLET = demoUser('hamlet').email;

function harness(options: HarnessOptions = {}) {
  const h = setupHarness({ emulatorSettings: { featureLevel: 390 }, ...options });
  const views = () => [...(h.emulator.store.navigationViews.get(h.userId('hamlet'))?.values() ?? [])];
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  return { h, views, calls };
}

const ADD = /* GraphQL */ `
  mutation ($fragment: String!, $isPinned: Boolean!, $name: String) {
    addNavigationView(fragment: $fragment, isPinned: $isPinned, name: $name) { fragment navigationView { id fragment isPinned name } }
  }
`;
const EDIT = /* GraphQL */ `
  mutation ($fragment: String!, $isPinned: Boolean, $name: String) {
    editNavigationView(fragment: $fragment, isPinned: $isPinned, name: $name) { fragment navigationView { fragment isPinned name } }
  }
`;
const REMOVE = 'mutation ($fragment: String!) { removeNavigationView(fragment: $fragment) { fragment } }';

describe('navigation views', () => {
  it('adds a view with one upstream call and returns it for the cache, then lists it', async () => {
    const { h, views, calls } = harness();
    const added = await h.gql(ADD, { fragment: 'narrow/is/alerted', isPinned: true, name: 'Alerts' }, { as: HAMLET });
    expect(added.errors).toBeUndefined();
    expect(added.data).toEqual({
      addNavigationView: { fragment: 'narrow/is/alerted', navigationView: { id: encodeGlobalID('NavigationView', 'narrow/is/alerted'), fragment: 'narrow/is/alerted', isPinned: true, name: 'Alerts' } },
    });
    expect(calls()).toEqual(['GET server_settings', 'POST navigation_views']);
    expect(views()).toEqual([{ fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' }]);
    h.resetUpstreamRequests();
    const listed = await h.gql('{ navigationViews { fragment isPinned name } }', {}, { as: HAMLET });
    expect(listed.data).toEqual({ navigationViews: [{ fragment: 'narrow/is/alerted', isPinned: true, name: 'Alerts' }] });
    expect(calls()).toEqual(['GET navigation_views']);
  });

  it('edits a view (fetching it only when selected) and removes it', async () => {
    const { h, views, calls } = harness();
    await h.gql(ADD, { fragment: 'inbox', isPinned: true }, { as: HAMLET });
    h.resetUpstreamRequests();
    const edited = await h.gql(EDIT, { fragment: 'inbox', isPinned: false }, { as: HAMLET });
    expect(edited.data).toEqual({ editNavigationView: { fragment: 'inbox', navigationView: { fragment: 'inbox', isPinned: false, name: null } } });
    expect(calls()).toEqual(['PATCH navigation_views/inbox', 'GET navigation_views']);
    h.resetUpstreamRequests();
    const removed = await h.gql(REMOVE, { fragment: 'inbox' }, { as: HAMLET });
    expect(removed.data).toEqual({ removeNavigationView: { fragment: 'inbox' } });
    expect(calls()).toEqual(['DELETE navigation_views/inbox']);
    expect(views()).toEqual([]);
  });

  it('keeps the server\u2019s error codes', async () => {
    const { h } = harness();
    const named = await h.gql(ADD, { fragment: 'inbox', isPinned: true, name: 'Mine' }, { as: HAMLET });
    expect(named.errors?.[0]).toMatchObject({
      message: 'Built-in views cannot have a custom name.',
      extensions: { code: 'BAD_REQUEST', httpStatus: 400, route: 'add-navigation-view' },
    });
    const missing = await h.gql(REMOVE, { fragment: 'narrow/is/none' }, { as: HAMLET });
    expect(missing.errors?.[0]).toMatchObject({
      message: 'Navigation view does not exist.',
      extensions: { code: 'BAD_REQUEST', httpStatus: 404, route: 'remove-navigation-view' },
    });
  });

  it('refuses a blank fragment or name and an edit that changes nothing, before any upstream call', async () => {
    const { h, calls } = harness();
    const cases: [string, Record<string, unknown>][] = [
      [ADD, { fragment: ' ', isPinned: true, name: 'X' }],
      [ADD, { fragment: 'narrow/is/alerted', isPinned: true, name: '  ' }],
      [EDIT, { fragment: 'inbox' }],
      [REMOVE, { fragment: '' }],
    ];
    for (const [query, variables] of cases) {
      const { errors } = await h.gql(query, variables, { as: HAMLET });
      expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect(calls()).toEqual([]);
  });

  it('answers UNSUPPORTED_BY_SERVER below feature level 390, before calling the endpoints', async () => {
    const { h, calls } = harness({ emulatorSettings: { featureLevel: 389 } });
    const queries: [string, Record<string, unknown>][] = [
      ['{ navigationViews { fragment } }', {}],
      [ADD, { fragment: 'inbox', isPinned: true }],
      [EDIT, { fragment: 'inbox', isPinned: true }],
      [REMOVE, { fragment: 'inbox' }],
    ];
    for (const [query, variables] of queries) {
      const { errors } = await h.gql(query, variables, { as: HAMLET });
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 390, featureLevel: 389 });
    }
    expect(calls()).toEqual(['GET server_settings']);
  });
});
