/**
 * `MessageConnection.conversations`: a page's messages grouped by conversation (a channel topic, or
 * a direct-message conversation), the most recently active first. On the newest page of the
 * caller's history (`messages(last: n)`) this is the list of recent conversations a chat app
 * opens on, as Zulip's own "Recent conversations" view builds it from the messages it fetched.
 * It costs nothing beyond the page, except `unreadCount` (the caller's unread counts, see
 * ../unreads.ts) and the linked channels and users (the per-request loaders).
 */
import type { Message } from '../../../zulip/model/messages.js';
import type { User } from '../../../zulip/model/users.js';
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { channelLookupCost, upstreamCost, userLookupCost } from '../../upstream/cost.js';
import { ChannelRef, channelOrNull } from '../channels/index.js';
import { unreads, unreadsCost } from '../unreads.js';
import { ownUser, UserRef } from '../users.js';
import { MessageTypeEnum } from './enums.js';
import { MessageRef } from './message.js';
import { MessageConnectionRef } from './pagination.js';

/** One conversation of a page. */
interface PageConversation {
  /** The newest message of the conversation on the page. */
  last: Message;
  /** How many of the page's messages belong to it. */
  count: number;
}

/**
 * Zulip matches topic names case-insensitively (a topic is one conversation whatever the case of
 * each message's copy of its name); a direct-message conversation is its set of participants.
 */
function conversationKey(message: Message): string {
  if (message.type === 'stream') return `channel:${message.stream_id}:${message.subject.toLowerCase()}`;
  return `dm:${participants(message).join(',')}`;
}

/** Every participant of a direct message (the caller included), ascending. */
function participants(message: Message): number[] {
  const recipients = Array.isArray(message.display_recipient) ? message.display_recipient : [];
  return recipients.map((r) => r.id).sort((a, b) => a - b);
}

/** The page's conversations, newest activity first. */
function conversationsOf(messages: readonly Message[]): PageConversation[] {
  const byKey = new Map<string, PageConversation>();
  for (const message of messages) {
    const key = conversationKey(message);
    const known = byKey.get(key);
    if (!known) byKey.set(key, { last: message, count: 1 });
    else {
      known.count++;
      if (message.id > known.last.id) known.last = message;
    }
  }
  return [...byKey.values()].sort((a, b) => b.last.id - a.last.id);
}

/** The other participants, ascending; the caller alone for their own conversation (as `ConversationUnreads.userIds`). */
async function otherParticipants(ctx: Context, message: Message): Promise<number[]> {
  const all = participants(message);
  if (all.length <= 1) return all;
  const self = (await ownUser(ctx)).user_id;
  return all.filter((id) => id !== self);
}

const sameIds = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((id, i) => id === b[i]);

const ConversationRef = builder.objectRef<PageConversation>('Conversation').implement({
  description:
    'A conversation: a topic of a channel, or a direct-message conversation (one-on-one or group), as seen on a page of messages.',
  fields: (t) => ({
    type: t.field({ type: MessageTypeEnum, description: 'A channel topic or a direct-message conversation.', resolve: (c) => c.last.type }),
    channelId: t.field({
      type: 'Long',
      nullable: true,
      description: 'The channel of a topic; null for direct messages.',
      resolve: (c) => c.last.stream_id ?? null,
    }),
    channel: t.field({
      type: ChannelRef,
      nullable: true,
      extensions: channelLookupCost,
      description: 'The channel of a topic; null for direct messages, or when the caller can no longer see the channel.',
      resolve: (c, _args, ctx) => (c.last.stream_id === undefined ? null : channelOrNull(ctx, c.last.stream_id)),
    }),
    topic: t.string({
      nullable: true,
      description: 'The topic name, as its newest message on the page has it; null for direct messages.',
      resolve: (c) => (c.last.type === 'stream' ? c.last.subject : null),
    }),
    userIds: t.field({
      type: ['Long'],
      nullable: true,
      extensions: upstreamCost({ once: { key: 'own user', calls: 1 }, directory: true }),
      description:
        'The other participants of a direct-message conversation, ascending (only the caller for their own conversation); null for a channel topic.',
      resolve: (c, _args, ctx) => (c.last.type === 'stream' ? null : otherParticipants(ctx, c.last)),
    }),
    users: t.field({
      type: [UserRef],
      nullable: true,
      extensions: userLookupCost,
      description: 'The participants `userIds` lists that the caller can see; null for a channel topic.',
      resolve: async (c, _args, ctx) => {
        if (c.last.type === 'stream') return null;
        const loaded = await ctx.loaders.users.loadMany(await otherParticipants(ctx, c.last));
        return loaded.filter((u): u is User => !(u instanceof Error));
      },
    }),
    lastMessage: t.field({ type: MessageRef, description: 'The newest message of the conversation on the page.', resolve: (c) => c.last }),
    messageCount: t.exposeInt('count', { description: 'How many of the page\u2019s messages belong to the conversation.' }),
    unreadCount: t.int({
      extensions: unreadsCost,
      description:
        'The caller\u2019s unread messages in the whole conversation (not only on the page), as `unreads` counts them, muted topics included.',
      resolve: async (c, _args, ctx) => {
        const counts = await unreads(ctx);
        if (c.last.type === 'stream') {
          const name = c.last.subject.toLowerCase();
          const channel = counts.channels.find((e) => e.channelId === c.last.stream_id);
          return channel?.topics.reduce((n, e) => n + (e.topic.toLowerCase() === name ? e.messageIds.length : 0), 0) ?? 0;
        }
        const others = await otherParticipants(ctx, c.last);
        return counts.conversations.find((e) => sameIds(e.userIds, others))?.messageIds.length ?? 0;
      },
    }),
  }),
});

builder.objectField(MessageConnectionRef, 'conversations', (t) =>
  t.field({
    type: [ConversationRef],
    description:
      'The page\u2019s messages grouped by conversation (channel topic or direct-message conversation), the most recently ' +
      'active first. On the newest page of the caller\u2019s history, their recent conversations. No upstream call of its own.',
    resolve: (page) => conversationsOf(page.edges),
  }),
);
