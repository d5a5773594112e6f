/**
 * Code playgrounds end to end: GraphQL → gateway → REST → emulator. The query (one register call),
 * the two mutations, the server's codes, the arguments refused before any call and the feature-level gate.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { featureLevels } from '../../../src/zulip/feature-levels.js';
import { createHarness, setupHarness } from '../../helpers/harness.js';

const IAGO = demoUser('iago').email;
const HAMLET = demoUser('hamlet').email;
const ADD = /* GraphQL */ `
  mutation ($name: String!, $language: String!, $template: String!) {
    addCodePlayground(name: $name, pygmentsLanguage: $language, urlTemplate: $template) {
      codePlayground { zulipId name pygmentsLanguage urlTemplate }
    }
  }
`;
const PYTHON = { name: ' Python playground', language: 'Python', template: 'https://python.example.com?code={code}' };

function harness() {
  const h = setupHarness();
  return { h, store: h.emulator.store, calls: () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`) };
}

describe('code playgrounds', () => {
  it('adds a playground from one call, lists it through one register call, and removes it', async () => {
    const { h, calls, store } = harness();
    const added = await h.gql<{ addCodePlayground: { codePlayground: { zulipId: number } } }>(ADD, PYTHON, { as: IAGO });
    const id = store.playgrounds[0]!.id;
    const playground = { zulipId: id, name: 'Python playground', pygmentsLanguage: 'Python', urlTemplate: PYTHON.template };
    expect(added.data).toEqual({ addCodePlayground: { codePlayground: playground } });
    expect(calls()).toEqual(['GET server_settings', 'POST realm/playgrounds']);
    h.resetUpstreamRequests();
    const list = await h.gql('{ codePlaygrounds { zulipId name pygmentsLanguage urlTemplate } }', {}, { as: HAMLET });
    expect(list.data).toEqual({ codePlaygrounds: [playground] });
    expect(calls()).toEqual(['POST register']);
    h.resetUpstreamRequests();
    const removed = await h.gql('mutation ($id: Long!) { removeCodePlayground(id: $id) { codePlaygroundId } }', { id }, { as: IAGO });
    expect(removed.data).toEqual({ removeCodePlayground: { codePlaygroundId: id } });
    expect(calls()).toEqual([`DELETE realm/playgrounds/${id}`]);
    expect(store.playgrounds).toEqual([]);
  });

  it('passes on UNAUTHORIZED_PRINCIPAL for a member and BAD_REQUEST for a bad template or unknown ID', async () => {
    const { h } = harness();
    const member = await h.gql(ADD, PYTHON, { as: HAMLET });
    expect(member.errors?.[0]).toMatchObject({ message: 'Must be an organization administrator', extensions: { code: 'UNAUTHORIZED_PRINCIPAL', route: 'add-code-playground' } });
    const template = await h.gql(ADD, { ...PYTHON, template: 'https://x.com/{src}' }, { as: IAGO });
    expect(template.errors?.[0]).toMatchObject({ message: '"code" should be the only variable present in the URL template', extensions: { code: 'BAD_REQUEST' } });
    const unknown = await h.gql('mutation { removeCodePlayground(id: 999) { codePlaygroundId } }', {}, { as: IAGO });
    expect(unknown.errors?.[0]).toMatchObject({ message: 'Invalid playground', extensions: { code: 'BAD_REQUEST', route: 'remove-code-playground' } });
  });

  it('refuses an empty argument before any upstream call', async () => {
    const { h, calls } = harness();
    for (const [variables, argument] of [[{ ...PYTHON, name: ' ' }, 'name'], [{ ...PYTHON, language: '' }, 'pygmentsLanguage'], [{ ...PYTHON, template: '' }, 'urlTemplate']] as const) {
      const { errors } = await h.gql(ADD, variables, { as: IAGO });
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
    }
    expect(calls()).toEqual([]);
  });

  it('answers UNSUPPORTED_BY_SERVER below feature level 196, with no call past server_settings', async () => {
    const old = createHarness({ emulatorSettings: { featureLevel: featureLevels.playgroundUrlTemplate - 1 } });
    try {
      for (const query of ['{ codePlaygrounds { zulipId } }', 'mutation { removeCodePlayground(id: 1) { codePlaygroundId } }']) {
        const { errors } = await old.gql(query, {}, { as: IAGO });
        expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 196, featureLevel: 195 });
      }
      expect(old.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
    } finally {
      await old.close();
    }
  });
});
