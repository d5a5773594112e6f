/**
 * Reactions end to end: `Message.reactions` with each reaction's user resolved through the users
 * loader, and the add/remove mutations with their documented refusals.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { demoUser } from '../../../src/emulator/seed.js';
import { createGateway } from '../../../src/gateway/yoga.js';
import { createHarness } from '../../helpers/harness.js';
import { scriptedFetch, success } from '../../helpers/scripted-fetch.js';

const HAMLET = demoUser('hamlet');
const AS_HAMLET = { as: HAMLET.email };

interface ReactionData {
  emojiName: string;
  emojiCode: string;
  reactionType: string;
  userId: number;
  user: { fullName: string } | null;
}

describe('reactions', () => {
  const h = createHarness();
  afterAll(() => h.close());
  const store = h.emulator.store;
  const welcome = () => [...store.messages.values()].find((m) => m.content.startsWith('Welcome to'))!;

  const REACTIONS = 'query($id: Long!) { message(id: $id) { reactions { emojiName emojiCode reactionType userId user { fullName } } } }';

  it('lists reactions with their users, one GET /users for all of them', async () => {
    h.resetUpstreamRequests();
    const { data, errors } = await h.gql<{ message: { reactions: ReactionData[] } }>(REACTIONS, { id: welcome().id }, AS_HAMLET);
    expect(errors).toBeUndefined();
    expect(data!.message.reactions).toEqual(
      welcome().reactions.map((r) => ({
        emojiName: r.emoji_name,
        emojiCode: r.emoji_code,
        reactionType: 'UNICODE_EMOJI',
        userId: r.user_id,
        user: { fullName: store.users.get(r.user_id)!.full_name },
      })),
    );
    expect(data!.message.reactions.length).toBeGreaterThanOrEqual(3);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([`GET messages/${welcome().id}`, 'GET users']);
  });

  it('adds a reaction, and refuses the same one twice with REACTION_ALREADY_EXISTS', async () => {
    const id = welcome().id;
    const ADD = 'mutation($id: Long!) { addReaction(messageId: $id, emojiName: "octopus") { messageId message { reactions { emojiName user { fullName } } } } }';
    const { data, errors } = await h.gql<{ addReaction: { messageId: number; message: { reactions: { emojiName: string; user: { fullName: string } }[] } } }>(ADD, { id }, AS_HAMLET);
    expect(errors).toBeUndefined();
    expect(data!.addReaction.messageId).toBe(id);
    expect(data!.addReaction.message.reactions).toContainEqual({ emojiName: 'octopus', user: { fullName: 'King Hamlet' } });
    const hamletId = store.userByEmail(HAMLET.email)!.user_id;
    expect(welcome().reactions).toContainEqual(expect.objectContaining({ emoji_name: 'octopus', user_id: hamletId, reaction_type: 'unicode_emoji' }));

    const again = await h.gql(ADD, { id }, AS_HAMLET);
    expect(again.data).toBeNull();
    expect(again.errors?.[0]?.extensions).toMatchObject({ code: 'REACTION_ALREADY_EXISTS', route: 'add-reaction' });
  });

  it('removes a reaction, and reports REACTION_DOES_NOT_EXIST as a GraphQL error with that code', async () => {
    const id = welcome().id;
    const REMOVE = 'mutation($id: Long!) { removeReaction(messageId: $id, emojiName: "octopus") { messageId } }';
    const hamletId = store.userByEmail(HAMLET.email)!.user_id;
    if (!welcome().reactions.some((r) => r.emoji_name === 'octopus' && r.user_id === hamletId)) {
      await h.gql('mutation($id: Long!) { addReaction(messageId: $id, emojiName: "octopus") { messageId } }', { id }, AS_HAMLET);
    }
    h.resetUpstreamRequests();
    const removed = await h.gql<{ removeReaction: { messageId: number } }>(REMOVE, { id }, AS_HAMLET);
    expect(removed.errors).toBeUndefined();
    expect(removed.data!.removeReaction).toEqual({ messageId: id });
    expect(welcome().reactions.some((r) => r.emoji_name === 'octopus' && r.user_id === hamletId)).toBe(false);
    expect(h.upstreamRequests.map((r) => `${r.method} ${r.path}`)).toEqual([`DELETE messages/${id}/reactions`]);

    const again = await h.gql(REMOVE, { id }, AS_HAMLET);
    expect(again.data).toBeNull();
    expect(again.errors?.[0]).toMatchObject({
      path: ['removeReaction'],
      extensions: { code: 'REACTION_DOES_NOT_EXIST', route: 'remove-reaction', httpStatus: 400 },
    });
  });

  it('removes a reaction named by code and type', async () => {
    const id = welcome().id;
    await h.gql('mutation($id: Long!) { addReaction(messageId: $id, emojiName: "tada") { messageId } }', { id }, AS_HAMLET);
    const { errors } = await h.gql(
      'mutation($id: Long!) { removeReaction(messageId: $id, emojiCode: "1f389", reactionType: UNICODE_EMOJI) { messageId } }',
      { id },
      AS_HAMLET,
    );
    expect(errors).toBeUndefined();
    const hamletId = store.userByEmail(HAMLET.email)!.user_id;
    expect(welcome().reactions.some((r) => r.emoji_code === '1f389' && r.user_id === hamletId)).toBe(false);
  });

  it('an invalid emoji is BAD_REQUEST', async () => {
    const { errors } = await h.gql('mutation($id: Long!) { addReaction(messageId: $id, emojiName: "no_such_emoji_xyz") { messageId } }', { id: welcome().id }, AS_HAMLET);
    expect(errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  });
});

describe('reactions from older servers', () => {
  it('reads `zulip_extra_emoji` as SERVICE_EXTRA_EMOJI and the legacy user object', async () => {
    const fetch = scriptedFetch([
      success({
        raw_content: 'x',
        message: {
          id: 1, avatar_url: null, client: 't', content: '<p>x</p>', content_type: 'text/html', display_recipient: 'general',
          is_me_message: false, recipient_id: 1, sender_email: 'a@b.c', sender_full_name: 'A', sender_id: 7, sender_realm_str: 'z',
          stream_id: 5, subject: 't', timestamp: 1, type: 'stream', flags: [],
          reactions: [{ emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji', user: { id: 7, email: 'a@b.c', full_name: 'A' } }],
        },
      }),
    ]);
    const gateway = createGateway({ zulipUrl: 'http://old-reactions.localhost', fetch, logging: false });
    const response = await gateway.fetch('http://gateway.localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('a@b.c:key').toString('base64')}` },
      body: JSON.stringify({ query: '{ message(id: 1) { reactions { emojiName reactionType userId } } }' }),
    });
    const body = await response.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.message.reactions).toEqual([{ emojiName: 'zulip', reactionType: 'SERVICE_EXTRA_EMOJI', userId: 7 }]);
  });
});
