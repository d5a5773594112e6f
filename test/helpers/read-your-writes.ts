/**
 * The read-your-writes cases (test/gateway/read-your-writes.test.ts, and across instances
 * test/gateway/cluster/read-your-writes.test.ts): per fenced mutation, a read the directory or the
 * message cache answers when nothing fences it, run before the write and after it, and what it
 * must show. Cases run in order (later ones use what earlier ones made), as iago of the demo seed.
 */
import { expect } from 'vitest';
import type { Emulator } from '../../src/emulator/app.js';
import { demoUser } from '../../src/emulator/seed.js';
import type { FetchLike } from '../../src/zulip/connection/transport.js';

/** Fenced mutations without a case, and why. */
export const NOT_COVERED: Readonly<Record<string, string>> = {
  archiveChannel: 'covered by updateChannel: the same `stream` fence and the same reads',
  createUser: 'needs an organization that allows it (the demo owner cannot create users in the emulator)',
  deactivateOwnUser: 'ends the credential itself: revocation, not read-your-writes',
  deactivateUser: 'the same `realm_user` fence as updateUser',
  reactivateUser: 'the same `realm_user` fence as updateUser',
  removeProfileData: 'the same `realm_user` fence as updateUser',
  updateProfileData: 'the same `realm_user` fence as updateUser',
  deactivateUserGroup: 'the same `user_group` fence as updateUserGroup',
  deleteTopic: 'the same `delete_message` fence as deleteMessage',
  markAllAsRead: 'the same `update_message_flags` fence as updateMessageFlags',
  markChannelAsRead: 'the same `update_message_flags` fence as updateMessageFlags',
  markTopicAsRead: 'the same `update_message_flags` fence as updateMessageFlags',
  updateMessageFlagsForNarrow: 'the same `update_message_flags` fence as updateMessageFlags',
  setTopicVisibility: 'the same directory fence (`user_topic`) read through the unread counts; not cached by the message cache',
  subscribe: 'covered by createChannel (`subscription`) and unsubscribe',
  updateSubscriptions: 'the same `subscription` fence as unsubscribe',
  testWelcomeBotCustomMessage: 'the same `message` fence as sendMessage',
  addLinkifier: 'linkifiers drop every cached window when their event arrives; the fence is the same kind as sendMessage',
  removeLinkifier: 'as addLinkifier',
  updateLinkifier: 'as addLinkifier',
  reorderLinkifiers: 'as addLinkifier',
  createChannelFolder: 'an event type the cache does not apply: it drops every window (as addLinkifier)',
  updateChannelFolder: 'as createChannelFolder',
  reorderChannelFolders: 'as createChannelFolder',
  createMessageReminder: 'as createChannelFolder',
  deleteReminder: 'as createChannelFolder',
  exportRealm: 'as createChannelFolder',
};


export interface Case {
  /** Reads that warm what the read below is served from (the directory is warm for every case). */
  warm?: string | (() => Promise<void>);
  /** The read waits for the write's event (the unread counts): the queue is let go once it waits. */
  waits?: true;
  /** What the read answers before the write, when not data without errors. */
  before?: (body: { data?: Record<string, any>; errors?: { extensions?: Record<string, unknown> }[] }) => void;
  mutation: () => string;
  read: string | (() => string);
  shows: (data: Record<string, any>) => void;
}

/** The cases against `emulator` (the demo seed), in the order they run. */
export function readYourWritesCases(emulator: Emulator): Record<string, Case> {
  const idOf = (login: string) => emulator.store.userByEmail(demoUser(login).email)!.user_id;
  const channelId = (name: string) => emulator.store.channelByName(name)!.stream_id;

  let messageId = 0;
  let groupId = 0;
  /** The ID the emulator gives the next channel (taken from its counter: the channel made next gets the one after). */
  let createdChannelId = 0;
  /** The unread counts of each channel the caller is subscribed to: the directory's, or the read waits for its fence. */
  const UNREADS = '{ unreads { channels { channelId unmutedCount } } }';
  const unmutedOf = (d: Record<string, any>, name: string) => d.unreads.channels.find((c: { channelId: number }) => c.channelId === channelId(name))?.unmutedCount;
  const CASES: Record<string, Case> = {
    createChannel: {
      // The ID is asked first: the server refuses it, and the directory remembers the refusal (its
      // missing channels) until a `stream` event; only the fence makes the next read ask again.
      warm: async () => {
        createdChannelId = emulator.store.nextId('channel') + 1;
      },
      before: (body) => expect(body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND'),
      mutation: () => `mutation { createChannel(name: "rw created", subscriberIds: [${idOf('iago')}]) { zulipId } }`,
      read: () => `{ channel(id: ${createdChannelId}) { name } }`,
      shows: (d) => expect(d.channel.name).toBe('rw created'),
    },
    updateChannel: {
      mutation: () => `mutation { updateChannel(id: ${channelId('general')}, description: "rw described") { zulipId } }`,
      read: `{ channel(id: ${channelId('general')}) { description } }`,
      shows: (d) => expect(d.channel.description).toBe('rw described'),
    },
    // The subscription cases read what the directory's subscriptions decide: a muted channel's
    // unread messages leave the unmuted count, an unsubscribed channel's leave the counts.
    updateSubscriptionProperty: {
      waits: true,
      mutation: () => `mutation { updateSubscriptionProperty(change: { channelId: ${channelId('design')}, isMuted: true }) { isMuted } }`,
      read: UNREADS,
      shows: (d) => expect(unmutedOf(d, 'design')).toBe(0),
    },
    updateSubscriptionSettings: {
      waits: true,
      mutation: () => `mutation { updateSubscriptionSettings(changes: [{ channelId: ${channelId('design')}, isMuted: false }]) { isMuted } }`,
      read: UNREADS,
      shows: (d) => expect(unmutedOf(d, 'design')).toBeGreaterThan(0),
    },
    unsubscribe: {
      waits: true,
      mutation: () => 'mutation { unsubscribe(channelNames: ["engineering"]) { __typename } }',
      read: UNREADS,
      shows: (d) => expect(unmutedOf(d, 'engineering')).toBeUndefined(),
    },
    updateUser: {
      mutation: () => `mutation { updateUser(user: { id: ${idOf('othello')} }, fullName: "Othello RW") { zulipId } }`,
      read: `{ user(id: ${idOf('othello')}) { fullName } }`,
      shows: (d) => expect(d.user.fullName).toBe('Othello RW'),
    },
    updateSettings: {
      mutation: () => 'mutation { updateSettings(input: { fullName: "Iago RW" }) { __typename } }',
      read: `{ user(id: ${idOf('iago')}) { fullName } }`,
      shows: (d) => expect(d.user.fullName).toBe('Iago RW'),
    },
    // No read can see a new group stale: the group list is asked upstream, and a group the directory
    // does not hold is too (a creation changes no record the directory holds, and it keeps no
    // refusals of group IDs). So this case holds even without the fence; updateUserGroup proves it.
    createUserGroup: {
      mutation: () => `mutation { createUserGroup(name: "rw group", description: "rw", members: [${idOf('iago')}]) { zulipId } }`,
      read: '{ userGroups { zulipId name } }',
      shows: (d) => {
        const group = d.userGroups.find((g: { name: string }) => g.name === 'rw group');
        expect(group).toBeDefined();
        groupId = group.zulipId;
      },
    },
    updateUserGroup: {
      mutation: () => `mutation { updateUserGroup(id: ${groupId}, name: "rw group renamed") { __typename } }`,
      read: () => `{ userGroup(id: ${groupId}) { name } }`,
      shows: (d) => expect(d.userGroup.name).toBe('rw group renamed'),
    },
    updateUserGroupMembers: {
      mutation: () => `mutation { updateUserGroupMembers(groupId: ${groupId}, add: [${idOf('othello')}]) { zulipId } }`,
      read: () => `{ userGroupMembers(groupId: ${groupId}) { userIds } }`,
      shows: (d) => expect(d.userGroupMembers.userIds).toContain(idOf('othello')),
    },
    sendMessage: {
      warm: '{ messages(last: 20) { edges { node { zulipId content } } } }',
      mutation: () => `mutation { sendMessage(channelId: ${channelId('general')}, topic: "rw", content: "read your writes") { messageId } }`,
      read: '{ messages(last: 20) { edges { node { zulipId content } } } }',
      shows: (d) => {
        const node = d.messages.edges.map((e: { node: { zulipId: number; content: string } }) => e.node).find((n: { content: string }) => n.content.includes('read your writes'));
        expect(node).toBeDefined();
        messageId = node.zulipId;
      },
    },
    editMessage: {
      warm: '{ messages(last: 20) { edges { node { zulipId content } } } }',
      mutation: () => `mutation { editMessage(messageId: ${messageId}, content: "read your edits") { __typename } }`,
      read: '{ messages(last: 20) { edges { node { zulipId content } } } }',
      shows: (d) => expect(d.messages.edges.find((e: { node: { zulipId: number } }) => e.node.zulipId === messageId).node.content).toContain('read your edits'),
    },
    addReaction: {
      warm: '{ messages(last: 20) { edges { node { zulipId reactions { emojiName } } } } }',
      mutation: () => `mutation { addReaction(messageId: ${messageId}, emojiName: "octopus") { __typename } }`,
      read: '{ messages(last: 20) { edges { node { zulipId reactions { emojiName } } } } }',
      shows: (d) => expect(d.messages.edges.find((e: { node: { zulipId: number } }) => e.node.zulipId === messageId).node.reactions).toEqual([{ emojiName: 'octopus' }]),
    },
    removeReaction: {
      warm: '{ messages(last: 20) { edges { node { zulipId reactions { emojiName } } } } }',
      mutation: () => `mutation { removeReaction(messageId: ${messageId}, emojiName: "octopus") { __typename } }`,
      read: '{ messages(last: 20) { edges { node { zulipId reactions { emojiName } } } } }',
      shows: (d) => expect(d.messages.edges.find((e: { node: { zulipId: number } }) => e.node.zulipId === messageId).node.reactions).toEqual([]),
    },
    updateMessageFlags: {
      warm: '{ messages(last: 20) { edges { node { zulipId starred } } } }',
      mutation: () => `mutation { updateMessageFlags(flag: STARRED, op: ADD, messageIds: [${messageId}]) { __typename } }`,
      read: '{ messages(last: 20) { edges { node { zulipId starred } } } }',
      shows: (d) => expect(d.messages.edges.find((e: { node: { zulipId: number } }) => e.node.zulipId === messageId).node.starred).toBe(true),
    },
    deleteMessage: {
      warm: '{ messages(last: 20) { edges { node { zulipId } } } }',
      mutation: () => `mutation { deleteMessage(id: ${messageId}) { __typename } }`,
      read: '{ messages(last: 20) { edges { node { zulipId } } } }',
      shows: (d) => expect(d.messages.edges.map((e: { node: { zulipId: number } }) => e.node.zulipId)).not.toContain(messageId),
    },
  };
  return CASES;
}

/**
 * The emulator's fetch, with the answers of the event queue's long polls held from `hold()` until
 * `release()`: a write's event then reaches no directory until the test lets it.
 */
export function heldEventPolls(emulator: Emulator): { fetch: FetchLike; hold(): void; release(): void } {
  let held: Promise<void> | undefined;
  let release = (): void => undefined;
  return {
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const response = await emulator.fetch(request);
      const hold = held;
      if (hold && request.method === 'GET' && new URL(request.url).pathname.endsWith('/events')) await hold;
      return response;
    },
    hold: () => {
      held = new Promise<void>((resolve) => (release = resolve));
    },
    release: () => {
      release();
      held = undefined;
    },
  };
}
