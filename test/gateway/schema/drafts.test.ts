/**
 * Drafts end to end: GraphQL → gateway → REST → emulator. Covers the `drafts` query, the three
 * mutations, the errors the server answers (mapped by errors.ts) and the feature-level gate.
 */
import { describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { setupHarness, type HarnessOptions } from '../../helpers/harness.js';

const HAMLET = demoUser('hamlet').email;

function harness(options: HarnessOptions = {}) {
  const h = setupHarness(options);
  const store = h.emulator.store;
  const hamletDrafts = () => [...store.drafts.get(h.userId('hamlet'))!.values()];
  return { h, store, userId: h.userId, channelId: h.channelId, hamletDrafts };
}

const DRAFT_FIELDS = /* GraphQL */ `
  zulipId type channelId channel { name } recipientIds recipients { fullName } topic content timestamp
`;

interface DraftData {
  zulipId: number;
  type: string;
  channelId: number | null;
  channel: { name: string } | null;
  recipientIds: number[];
  recipients: { fullName: string }[] | null;
  topic: string;
  content: string;
  timestamp: number;
}

describe('drafts query', () => {
  it('lists the caller\u2019s drafts with the channel resolved through the loader', async () => {
    const { h, channelId, store } = harness();
    const { data, errors } = await h.gql<{ drafts: DraftData[] }>(`{ drafts { ${DRAFT_FIELDS} } }`, {}, { as: HAMLET });
    expect(errors).toBeUndefined();
    const seeded = store.drafts.get(store.userByEmail(HAMLET)!.user_id)!.get(1)!;
    expect(data!.drafts).toEqual([
      {
        zulipId: 1, type: 'CHANNEL', channelId: channelId('general'), channel: { name: 'general' }, recipientIds: [], recipients: [],
        topic: 'greetings', content: 'Draft: thank everyone', timestamp: seeded.timestamp,
      },
    ]);
    const calls = h.upstreamRequests.map((r) => `${r.method} ${r.path}`);
    expect(calls).toEqual(['GET server_settings', 'GET drafts', 'GET streams']);
  });

  it('is empty for a user without drafts', async () => {
    const { h } = harness();
    const { data, errors } = await h.gql<{ drafts: DraftData[] }>('{ drafts { zulipId } }', {}, { as: demoUser('iago').email });
    expect(errors).toBeUndefined();
    expect(data!.drafts).toEqual([]);
  });

  it('passes on BAD_REQUEST when the user turned drafts synchronization off', async () => {
    const { h, store, userId } = harness();
    store.users.get(userId('hamlet'))!.settings.enable_drafts_synchronization = false;
    const { data, errors } = await h.gql('{ drafts { zulipId } }', {}, { as: HAMLET });
    expect(data).toEqual({ drafts: null });
    expect(errors?.[0]).toMatchObject({
      message: 'User has disabled synchronizing drafts.',
      path: ['drafts'],
      extensions: { code: 'BAD_REQUEST', httpStatus: 400, route: 'get-drafts' },
    });
  });

  it('answers UNAUTHENTICATED without credentials', async () => {
    const { h } = harness();
    const { errors } = await h.gql('{ drafts { zulipId } }', {}, { as: null });
    expect(errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('createDrafts', () => {
  const CREATE = /* GraphQL */ `
    mutation ($drafts: [DraftInput!]!) { createDrafts(drafts: $drafts) { ids drafts { ${DRAFT_FIELDS} } } }
  `;

  it('creates drafts of every type and returns them as stored', async () => {
    const { h, userId, channelId, hamletDrafts } = harness();
    const [iago, cordelia] = [userId('iago'), userId('cordelia')];
    const { data, errors } = await h.gql<{ createDrafts: { ids: number[]; drafts: DraftData[] } }>(
      CREATE,
      {
        drafts: [
          { type: 'CHANNEL', to: [channelId('design')], topic: 'palette', content: 'More blue', timestamp: 1700000000 },
          { type: 'DIRECT', to: [cordelia, iago], topic: 'ignored', content: 'Rehearsal?', timestamp: 1700000001 },
          { type: 'UNADDRESSED', content: 'Some idea', timestamp: 1700000002 },
        ],
      },
      { as: HAMLET },
    );
    expect(errors).toBeUndefined();
    expect(data!.createDrafts.ids).toEqual([2, 3, 4]);
    expect(data!.createDrafts.drafts).toEqual([
      {
        zulipId: 2, type: 'CHANNEL', channelId: channelId('design'), channel: { name: 'design' }, recipientIds: [], recipients: [],
        topic: 'palette', content: 'More blue', timestamp: 1700000000,
      },
      {
        zulipId: 3, type: 'DIRECT', channelId: null, channel: null, recipientIds: [iago, cordelia],
        recipients: [{ fullName: 'Iago' }, { fullName: 'Cordelia, Lear\u2019s daughter' }], topic: '', content: 'Rehearsal?', timestamp: 1700000001,
      },
      {
        zulipId: 4, type: 'UNADDRESSED', channelId: null, channel: null, recipientIds: [], recipients: [],
        topic: '', content: 'Some idea', timestamp: 1700000002,
      },
    ]);
    expect(hamletDrafts().map((d) => d.id)).toEqual([1, 2, 3, 4]);
  });

  it('does not fetch the drafts back unless they are selected', async () => {
    const { h } = harness();
    const { data } = await h.gql<{ createDrafts: { ids: number[] } }>(
      'mutation { createDrafts(drafts: [{ type: UNADDRESSED, content: "x" }]) { ids } }', {}, { as: HAMLET },
    );
    expect(data!.createDrafts.ids).toEqual([2]);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET server_settings', 'POST drafts']);
  });

  it('fails the whole batch with BAD_REQUEST when one channel draft lacks exactly one channel', async () => {
    const { h, channelId, hamletDrafts } = harness();
    const { data, errors } = await h.gql(
      CREATE,
      {
        drafts: [
          { type: 'UNADDRESSED', content: 'fine' },
          { type: 'CHANNEL', to: [channelId('general'), channelId('design')], topic: 't', content: 'two channels' },
        ],
      },
      { as: HAMLET },
    );
    expect(data).toBeNull();
    expect(errors?.[0]).toMatchObject({
      message: 'Must specify exactly 1 channel ID for channel messages',
      path: ['createDrafts'],
      extensions: { code: 'BAD_REQUEST', httpStatus: 400, route: 'create-drafts' },
    });
    expect(hamletDrafts()).toHaveLength(1);
  });

  it('passes on BAD_REQUEST for an unknown user or channel', async () => {
    const { h, hamletDrafts } = harness();
    for (const [draft, message] of [
      [{ type: 'DIRECT', to: [4242], content: 'hi' }, 'Invalid user ID 4242'],
      [{ type: 'CHANNEL', to: [4242], topic: 't', content: 'hi' }, 'Invalid channel ID'],
    ] as const) {
      const { errors } = await h.gql(CREATE, { drafts: [draft] }, { as: HAMLET });
      expect(errors?.[0]).toMatchObject({ message, extensions: { code: 'BAD_REQUEST' } });
    }
    expect(hamletDrafts()).toHaveLength(1);
  });

  it('rejects a null byte in the content without a 500', async () => {
    const { h } = harness();
    const { errors } = await h.gql(CREATE, { drafts: [{ type: 'UNADDRESSED', content: 'a\u0000b' }] }, { as: HAMLET });
    expect(errors?.[0]).toMatchObject({ message: 'Message must not contain null bytes', extensions: { code: 'BAD_REQUEST' } });
  });
});

describe('editDraft and deleteDraft', () => {
  const EDIT = /* GraphQL */ `
    mutation ($id: Long!, $draft: DraftInput!) { editDraft(id: $id, draft: $draft) { draftId draft { ${DRAFT_FIELDS} } } }
  `;
  const DELETE = 'mutation ($id: Long!) { deleteDraft(id: $id) { draftId } }';

  it('replaces a draft and returns it as stored', async () => {
    const { h, userId } = harness();
    const othello = userId('othello');
    const { data, errors } = await h.gql<{ editDraft: { draftId: number; draft: DraftData } }>(
      EDIT,
      { id: 1, draft: { type: 'DIRECT', to: [othello], content: 'Never mind', timestamp: 1700000100 } },
      { as: HAMLET },
    );
    expect(errors).toBeUndefined();
    expect(data!.editDraft).toEqual({
      draftId: 1,
      draft: {
        zulipId: 1, type: 'DIRECT', channelId: null, channel: null, recipientIds: [othello], recipients: [{ fullName: 'Othello, the Moor of Venice' }],
        topic: '', content: 'Never mind', timestamp: 1700000100,
      },
    });
  });

  it('answers BAD_REQUEST "Draft does not exist" for an unknown draft', async () => {
    const { h } = harness();
    for (const [query, variables, route] of [
      [EDIT, { id: 99, draft: { type: 'UNADDRESSED', content: 'x' } }, 'edit-draft'],
      [DELETE, { id: 99 }, 'delete-draft'],
    ] as const) {
      const { data, errors } = await h.gql(query, variables, { as: HAMLET });
      expect(data).toBeNull();
      expect(errors?.[0]).toMatchObject({ message: 'Draft does not exist', extensions: { code: 'BAD_REQUEST', httpStatus: 404, route } });
    }
  });

  it('deletes a draft', async () => {
    const { h, hamletDrafts } = harness();
    const { data, errors } = await h.gql<{ deleteDraft: { draftId: number } }>(DELETE, { id: 1 }, { as: HAMLET });
    expect(errors).toBeUndefined();
    expect(data!.deleteDraft).toEqual({ draftId: 1 });
    expect(hamletDrafts()).toEqual([]);
  });

  it('does not let another user edit or delete the draft', async () => {
    const { h, hamletDrafts } = harness();
    const iago = demoUser('iago').email;
    const { errors } = await h.gql(DELETE, { id: 1 }, { as: iago });
    expect(errors?.[0]?.message).toBe('Draft does not exist');
    expect(hamletDrafts()).toHaveLength(1);
  });
});

describe('feature level', () => {
  it('answers UNSUPPORTED_BY_SERVER below feature level 87, before calling the drafts endpoints', async () => {
    const { h, hamletDrafts } = harness({ emulatorSettings: { featureLevel: 86 } });
    const queries = [
      '{ drafts { zulipId } }',
      'mutation { createDrafts(drafts: [{ type: UNADDRESSED, content: "x" }]) { ids } }',
      'mutation { editDraft(id: 1, draft: { type: UNADDRESSED, content: "x" }) { draftId } }',
      'mutation { deleteDraft(id: 1) { draftId } }',
    ];
    for (const query of queries) {
      const { data, errors } = await h.gql(query, {}, { as: HAMLET });
      expect(data).toEqual(query.startsWith('{') ? { drafts: null } : null);
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNSUPPORTED_BY_SERVER', requiredFeatureLevel: 87, featureLevel: 86 });
      expect(errors?.[0]?.message).toContain('feature level 87');
    }
    expect(h.upstreamRequests.map((r) => r.path)).toEqual(['server_settings']);
    expect(hamletDrafts()).toHaveLength(1);
  });

  it('works at exactly feature level 87', async () => {
    const { h } = harness({ emulatorSettings: { featureLevel: 87 } });
    const { data, errors } = await h.gql<{ drafts: { zulipId: number }[] }>('{ drafts { zulipId } }', {}, { as: HAMLET });
    expect(errors).toBeUndefined();
    expect(data!.drafts).toEqual([{ zulipId: 1 }]);
  });
});
