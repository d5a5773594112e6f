/**
 * Saved snippets end to end: GraphQL → gateway → REST → emulator. The query, the three mutations,
 * their upstream calls, bad input refused before any call, Zulip's errors with their codes, and
 * the feature-level gates (297, and 368 for editing).
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness, type HarnessOptions } from '../../helpers/harness.js';

const HAMLET = demoUser('hamlet').email;
const IAGO = demoUser('iago').email;

function harness(options: HarnessOptions = {}) {
  const h = setupHarness(options);
  const snippets = (who = 'hamlet') => [...(h.emulator.store.savedSnippets.get(h.userId(who))?.values() ?? [])];
  const calls = () => h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
  return { h, snippets, calls };
}

const CREATE = /* GraphQL */ `
  mutation ($title: String!, $content: String!) {
    createSavedSnippet(title: $title, content: $content) { savedSnippetId savedSnippet { zulipId title content dateCreated } }
  }
`;
const EDIT = /* GraphQL */ `
  mutation ($id: Long!, $title: String, $content: String) {
    editSavedSnippet(id: $id, title: $title, content: $content) { savedSnippetId savedSnippet { title content } }
  }
`;
const DELETE = /* GraphQL */ `mutation ($id: Long!) { deleteSavedSnippet(id: $id) { savedSnippetId } }`;

interface Created {
  createSavedSnippet: { savedSnippetId: number; savedSnippet: { zulipId: number; title: string; content: string; dateCreated: number } };
}

describe('saved snippets', () => {
  it('creates a snippet and returns it as stored, then lists it', async () => {
    const { h, snippets, calls } = harness();
    const { data, errors } = await h.gql<Created>(CREATE, { title: ' Hi ', content: 'Hello!' }, { as: HAMLET });
    expect(errors).toBeUndefined();
    const [stored] = snippets();
    expect(data!.createSavedSnippet).toEqual({
      savedSnippetId: stored!.id,
      savedSnippet: { zulipId: stored!.id, title: 'Hi', content: 'Hello!', dateCreated: stored!.date_created },
    });
    expect(calls()).toEqual(['GET server_settings', 'POST saved_snippets', 'GET saved_snippets']);

    h.resetUpstreamRequests();
    const list = await h.gql<{ savedSnippets: unknown[] }>('{ savedSnippets { zulipId title content } }', {}, { as: HAMLET });
    expect(list.errors).toBeUndefined();
    expect(list.data!.savedSnippets).toEqual([{ zulipId: stored!.id, title: 'Hi', content: 'Hello!' }]);
    expect(calls()).toEqual(['GET saved_snippets']);
  });

  it('edits a snippet (refetched because it is selected) and deletes one (a single call)', async () => {
    const { h, snippets, calls } = harness();
    const created = await h.gql<Created>(CREATE, { title: 'T', content: 'C' }, { as: HAMLET });
    const id = created.data!.createSavedSnippet.savedSnippetId;
    h.resetUpstreamRequests();

    const edited = await h.gql(EDIT, { id, content: 'D' }, { as: HAMLET });
    expect(edited.errors).toBeUndefined();
    expect(edited.data).toEqual({ editSavedSnippet: { savedSnippetId: id, savedSnippet: { title: 'T', content: 'D' } } });
    expect(calls()).toEqual([`PATCH saved_snippets/${id}`, 'GET saved_snippets']);

    h.resetUpstreamRequests();
    const deleted = await h.gql(DELETE, { id }, { as: HAMLET });
    expect(deleted).toMatchObject({ data: { deleteSavedSnippet: { savedSnippetId: id } } });
    expect(calls()).toEqual([`DELETE saved_snippets/${id}`]);
    expect(snippets()).toEqual([]);
  });

  it('passes on "Saved snippet does not exist." for another user\u2019s snippet', async () => {
    const { h, snippets } = harness();
    const id = (await h.gql<Created>(CREATE, { title: 'T', content: 'C' }, { as: HAMLET })).data!.createSavedSnippet.savedSnippetId;
    for (const [query, field, variables] of [
      [EDIT, 'editSavedSnippet', { id, title: 'X' }],
      [DELETE, 'deleteSavedSnippet', { id }],
    ] as const) {
      const { data, errors } = await h.gql(query, variables, { as: IAGO });
      expect(data).toBeNull();
      expect(errors?.[0]).toMatchObject({
        message: 'Saved snippet does not exist.',
        path: [field],
        extensions: { code: 'BAD_REQUEST', httpStatus: 404 },
      });
    }
    expect(snippets()).toMatchObject([{ id, title: 'T' }]);
  });

  it('passes on BAD_REQUEST for a title over 60 characters', async () => {
    const { h, snippets } = harness();
    const { errors } = await h.gql(CREATE, { title: 'x'.repeat(61), content: 'C' }, { as: HAMLET });
    expect(errors?.[0]).toMatchObject({ message: 'title is too long (limit: 60 characters)', extensions: { code: 'BAD_REQUEST', route: 'create-saved-snippet' } });
    expect(snippets()).toEqual([]);
  });

  it.each([
    [CREATE, { title: ' ', content: 'C' }, 'title'],
    [CREATE, { title: 'T', content: '\n' }, 'content'],
    [EDIT, { id: 1, title: '  ' }, 'title'],
    [EDIT, { id: 1 }, undefined],
  ])('refuses blank text or an empty edit with BAD_USER_INPUT before any upstream call (%#)', async (query, variables, argument) => {
    const { h } = harness();
    const { errors } = await h.gql(query, variables, { as: HAMLET });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', ...(argument && { argument }) });
    expect(h.upstreamRequests).toEqual([]);
  });
});

describe('feature level', () => {
  it('answers UNSUPPORTED_BY_SERVER below 297 before calling the saved-snippets endpoints', async () => {
    const { h, calls } = harness({ emulatorSettings: { featureLevel: 296 } });
    for (const [query, variables] of [
      ['{ savedSnippets { zulipId } }', {}],
      [CREATE, { title: 'T', content: 'C' }],
      [EDIT, { id: 1, title: 'T' }],
      [DELETE, { id: 1 }],
    ] as const) {
      const { errors } = await h.gql(query, variables, { as: HAMLET });
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', featureLevel: 296 });
    }
    expect(calls()).toEqual(['GET server_settings']);
  });

  it('gates editing at 368 while creating works at 367', async () => {
    const { h, snippets } = harness({ emulatorSettings: { featureLevel: 367 } });
    const created = await h.gql<Created>(CREATE, { title: 'T', content: 'C' }, { as: HAMLET });
    expect(created.errors).toBeUndefined();
    const { errors } = await h.gql(EDIT, { id: created.data!.createSavedSnippet.savedSnippetId, title: 'U' }, { as: HAMLET });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 368, featureLevel: 367 });
    expect(snippets()).toMatchObject([{ title: 'T' }]);
  });
});
