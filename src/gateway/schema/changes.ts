/**
 * `changes(since:)`: what changed for the caller since a stamp (`extensions.stamp` of any answer),
 * compacted to final states and answered from the credential's change log (sync/logs.ts) and live
 * directory, with no upstream call while the stamp is retained. docs/mobile-sync.md has the flow.
 */
import { GraphQLError } from 'graphql';
import type { Channel } from '../../zulip/model/channels.js';
import type { Subscription } from '../../zulip/model/subscriptions.js';
import type { UserGroup } from '../../zulip/model/user-groups.js';
import type { User } from '../../zulip/model/users.js';
import { getSubscriptions } from '../../zulip/routes/subscriptions.js';
import { builder } from '../builder.js';
import { requireCredentials, type Context } from '../context.js';
import { badInput, GatewayErrorCode } from '../errors.js';
import type { Directory } from '../directory/directory.js';
import type { ChangeSet, EditedMessage, NewMessage, ObjectKind, SyncFlag } from '../sync/log.js';
import type { SyncAnswer } from '../sync/logs.js';
import { ChannelRef } from './channels/index.js';
import { MessageTypeEnum } from './messages/enums.js';
import { encodeCursor as messageCursor } from './messages/cursor.js';
import { MessageRef, primeMessageLoader } from './messages/message.js';
import { camelCase } from './settings.js';
import { SubscriptionRef } from './subscriptions/index.js';
import { UnreadsRef, unreads } from './unreads.js';
import { UserGroupRef } from './user-groups.js';
import { UserRef } from './users.js';

/** The most new messages `changes` returns per conversation. */
export const MAX_MESSAGES_PER_CONVERSATION = 100;
const DEFAULT_MESSAGES_PER_CONVERSATION = 20;

/** A stamp is short; anything longer is not one (refused before any lookup). */
const MAX_STAMP_LENGTH = 200;

interface ChangesShape {
  answer: SyncAnswer;
}

interface ConversationShape {
  type: 'stream' | 'private';
  channelId: number | undefined;
  topic: string | undefined;
  userIds: number[] | undefined;
  messages: NewMessage[];
  newMessages: number;
}

interface ObjectChanges<T> {
  changed: () => Promise<T[]>;
  removedIds: number[];
}

const none = <T>(): ObjectChanges<T> => ({ changed: () => Promise.resolve([]), removedIds: [] });

function changeSet(answer: SyncAnswer): ChangeSet | undefined {
  return answer.resyncRequired ? undefined : answer.changes;
}

/** The conversation of a message: channel and topic (as Zulip matches topics, case-insensitively), or its participants. */
function conversationKey(message: NewMessage): string {
  return message.type === 'stream' ? `c:${message.channelId}:${message.topic.toLowerCase()}` : `d:${message.userIds?.join(',') ?? ''}`;
}

function conversations(created: readonly NewMessage[], first: number): ConversationShape[] {
  const groups = new Map<string, NewMessage[]>();
  for (const message of created) {
    const key = conversationKey(message);
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(message);
  }
  return [...groups.values()].map((messages) => {
    const last = messages.at(-1)!;
    return {
      type: last.type,
      channelId: last.channelId,
      topic: last.type === 'stream' ? last.topic : undefined,
      userIds: last.userIds,
      messages: messages.slice(-first),
      newMessages: messages.length,
    };
  });
}

async function objects<T>(answer: SyncAnswer, kind: ObjectKind, load: (ids: number[], directory: Directory | undefined) => Promise<(T | undefined)[]>): Promise<ObjectChanges<T>> {
  const changes = changeSet(answer);
  if (!changes || answer.resyncRequired) return none();
  const { changedIds, removedIds } = changes.objects.get(kind)!;
  const loaded = changedIds.length === 0 ? [] : await load(changedIds, answer.directory);
  // One the caller can no longer see is gone for them.
  const gone = changedIds.filter((_id, i) => loaded[i] === undefined);
  return { changed: () => Promise.resolve(loaded.filter((o): o is Awaited<T> => o !== undefined) as T[]), removedIds: [...removedIds, ...gone].sort((a, b) => a - b) };
}

async function loadAll<T>(loader: { loadMany(ids: readonly number[]): Promise<(T | Error)[]> }, ids: number[]): Promise<(T | undefined)[]> {
  return (await loader.loadMany(ids)).map((o) => (o instanceof Error ? undefined : o));
}

function objectChangesRef<T extends object>(name: string, what: string, ref: Parameters<typeof builder.objectRef>[0] | unknown, removed: string) {
  return builder.objectRef<ObjectChanges<T>>(name).implement({
    description: `The ${what} that changed since the stamp, at their final state, and those that are gone.`,
    fields: (t) => ({
      changed: t.field({
        type: [ref as never],
        description: `The ${what} created or changed since the stamp, as they are now (once each, however often they changed).`,
        resolve: (o) => o.changed() as never,
      }),
      removedIds: t.field({ type: ['Long'], description: removed, resolve: (o) => o.removedIds }),
    }),
  });
}

const UserChangesRef = objectChangesRef<User>('UserChanges', 'users', UserRef, 'Users deactivated, or no longer visible to the caller, since the stamp.');
const ChannelChangesRef = objectChangesRef<Channel>('ChannelChanges', 'channels', ChannelRef, 'Channels deleted (archived), or no longer visible to the caller, since the stamp.');
const UserGroupChangesRef = objectChangesRef<UserGroup>('UserGroupChanges', 'user groups', UserGroupRef, 'User groups deleted since the stamp.');
const SubscriptionChangesRef = objectChangesRef<Subscription>(
  'SubscriptionChanges',
  "caller's channel subscriptions",
  SubscriptionRef,
  'Channel IDs the caller unsubscribed from (or was removed from) since the stamp.',
);

const ConversationChangesRef = builder.objectRef<ConversationShape>('ConversationChanges').implement({
  description: 'New messages of one conversation since the stamp: how many, and whether `MessageChanges.created` holds them all.',
  fields: (t) => ({
    type: t.field({ type: MessageTypeEnum, description: 'A channel topic or a direct-message conversation.', resolve: (c) => c.type }),
    channelId: t.field({ type: 'Long', nullable: true, description: 'The channel; null for direct messages.', resolve: (c) => c.channelId ?? null }),
    topic: t.string({ nullable: true, description: 'The topic, as its newest message has it; null for direct messages.', resolve: (c) => c.topic ?? null }),
    userIds: t.field({
      type: ['Long'],
      nullable: true,
      description: 'Direct messages: every participant, the caller included, ascending; null for a channel topic.',
      resolve: (c) => c.userIds ?? null,
    }),
    newMessages: t.exposeInt('newMessages', { description: 'How many messages the conversation got since the stamp (and still has).' }),
    hasMore: t.boolean({
      description: 'Whether the conversation got more new messages than `created` holds (the newest `first`); page back from `before` with `messages`.',
      resolve: (c) => c.newMessages > c.messages.length,
    }),
    before: t.string({
      nullable: true,
      description: 'A `messages` cursor at the oldest new message returned: `messages(before: ...)` in this conversation\'s narrow pages back from it.',
      resolve: (c) => (c.messages[0] ? messageCursor(c.messages[0].id) : null),
    }),
  }),
});

const EditedMessageRef = builder.objectRef<EditedMessage>('EditedMessage').implement({
  description: 'The final state of an edit or move of a message older than the stamp (final content and place, once however often it changed).',
  fields: (t) => ({
    messageId: t.field({ type: 'Long', description: 'The message ID.', resolve: (e) => e.id }),
    content: t.string({ nullable: true, description: 'The content now (HTML), when it was edited; null when only moved.', resolve: (e) => e.content ?? null }),
    topic: t.string({ nullable: true, description: 'The topic it is in now, when moved or renamed; null when unchanged.', resolve: (e) => e.topic ?? null }),
    channelId: t.field({ type: 'Long', nullable: true, description: 'The channel it is in now, when moved to another; null when unchanged.', resolve: (e) => e.channelId ?? null }),
    editTimestamp: t.field({ type: 'Long', nullable: true, description: 'UNIX seconds of the last edit or move.', resolve: (e) => e.editTimestamp ?? null }),
  }),
});

interface MessageChangesShape {
  changes: ChangeSet | undefined;
  first: number;
}

const MessageChangesRef = builder.objectRef<MessageChangesShape>('MessageChanges').implement({
  description:
    'Messages since the stamp, compacted: a message created and deleted since is in no list, a new message that was edited or moved is in `created` as it is now, ' +
    'and an older one edited any number of times is one `edited` entry.',
  fields: (t) => ({
    created: t.field({
      // From the change log: the messages are primed into the request's loader, nothing is fetched.
      zulip: { cost: {} },
      type: [MessageRef],
      description: 'New messages as they are now, the newest `first` of each conversation, ascending by ID.',
      resolve: (m, _args, ctx) => {
        const created = m.changes ? conversations(m.changes.created, m.first).flatMap((c) => c.messages.map((n) => n.message())).sort((a, b) => a.id - b.id) : [];
        primeMessageLoader(ctx, created);
        return created;
      },
    }),
    conversations: t.field({
      type: [ConversationChangesRef],
      description: 'The conversations with new messages, the most recently active first.',
      resolve: (m) => (m.changes ? conversations(m.changes.created, m.first).sort((a, b) => b.messages.at(-1)!.id - a.messages.at(-1)!.id) : []),
    }),
    edited: t.field({ type: [EditedMessageRef], description: 'Older messages edited or moved since the stamp: their final content and place.', resolve: (m) => m.changes?.edited ?? [] }),
    deletedIds: t.field({ type: ['Long'], description: 'Older messages deleted since the stamp (or no longer visible), ascending.', resolve: (m) => m.changes?.deletedIds ?? [] }),
  }),
});

const SyncFlagEnum = builder.enumType('SyncFlag', {
  description: 'The message flags `changes` reports.',
  values: {
    READ: { value: 'read', description: 'Read.' },
    STARRED: { value: 'starred', description: 'Starred.' },
    MENTIONED: { value: 'mentioned', description: 'Mentions the caller (personally, through a group, or by a wildcard).' },
  } as const satisfies Record<string, { value: SyncFlag; description: string }>,
});

const FlagChangesRef = builder.objectRef<{ flag: SyncFlag; set: number[]; cleared: number[] }>('FlagChanges').implement({
  description: "Messages older than the stamp whose flag changed, by final value (new messages carry their flags in `flags`).",
  fields: (t) => ({
    flag: t.field({ type: SyncFlagEnum, description: 'The flag.', resolve: (f) => f.flag }),
    set: t.field({ type: ['Long'], description: 'Message IDs that have the flag now, ascending.', resolve: (f) => [...f.set].sort((a, b) => a - b) }),
    cleared: t.field({ type: ['Long'], description: 'Message IDs that no longer have it, ascending.', resolve: (f) => [...f.cleared].sort((a, b) => a - b) }),
  }),
});

const ReactionChangeRef = builder.objectRef<ChangeSet['reactions'][number]>('ReactionChange').implement({
  description: 'A reaction on a message older than the stamp, added or removed (final state, once per user and emoji).',
  fields: (t) => ({
    messageId: t.field({ type: 'Long', description: 'The message.', resolve: (r) => r.messageId }),
    userId: t.field({ type: 'Long', description: 'Who reacted.', resolve: (r) => r.userId }),
    emojiName: t.exposeString('emojiName', { description: 'The emoji name.' }),
    emojiCode: t.exposeString('emojiCode', { description: 'The emoji code.' }),
    reactionType: t.exposeString('reactionType', { description: 'unicode_emoji, realm_emoji or zulip_extra_emoji.' }),
    added: t.exposeBoolean('added', { description: 'True when the reaction is there now, false when it was removed.' }),
  }),
});

const SettingChangeRef = builder.objectRef<{ name: string; value: unknown }>('SettingChange').implement({
  description: "One of the caller's settings changed since the stamp, at its final value.",
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The field of `Settings` it is (Zulip\'s setting name in camel case).' }),
    value: t.field({ type: 'JSON', description: 'Its value now.', resolve: (s) => s.value }),
  }),
});

const ChangesRef = builder.objectRef<ChangesShape>('Changes').implement({
  description:
    'What changed for the caller since a stamp, compacted to final states. When `resyncRequired` is true nothing else is to be trusted: run the cold-start query again. ' +
    'See docs/mobile-sync.md.',
  fields: (t) => ({
    stamp: t.string({
      nullable: true,
      description: 'The position this answer reflects: pass it to the next `changes(since:)` or to a subscription\'s `after:`. Null only when the credential\'s event queue could not be registered.',
      resolve: (c) => c.answer.stamp ?? null,
    }),
    resyncRequired: t.boolean({
      description: 'True when `since` is older than what the gateway retained, unknown to it (another session, a restart) or not a stamp: refetch everything, then use the new stamp.',
      resolve: (c) => c.answer.resyncRequired,
    }),
    messages: t.field({
      type: MessageChangesRef,
      args: {
        first: t.arg.int({
          required: false,
          defaultValue: DEFAULT_MESSAGES_PER_CONVERSATION,
          description: `At most this many new messages per conversation, the newest (1 to ${MAX_MESSAGES_PER_CONVERSATION}).`,
        }),
      },
      description: 'Messages created, edited, moved and deleted since the stamp.',
      resolve: (c, args) => {
        const first = args.first ?? DEFAULT_MESSAGES_PER_CONVERSATION;
        if (!Number.isInteger(first) || first < 1 || first > MAX_MESSAGES_PER_CONVERSATION) {
          throw badInput(`\`first\` must be between 1 and ${MAX_MESSAGES_PER_CONVERSATION}.`, { argument: 'first', min: 1, max: MAX_MESSAGES_PER_CONVERSATION });
        }
        return { changes: changeSet(c.answer), first };
      },
    }),
    flags: t.field({
      type: [FlagChangesRef],
      description: 'Flag changes (read, starred, mentioned) of messages older than the stamp, by final value; only flags that changed.',
      resolve: (c) => [...(changeSet(c.answer)?.flags ?? [])].filter(([, f]) => f.set.length + f.cleared.length > 0).map(([flag, f]) => ({ flag, ...f })),
    }),
    reactions: t.field({ type: [ReactionChangeRef], description: 'Reactions added or removed on messages older than the stamp.', resolve: (c) => changeSet(c.answer)?.reactions ?? [] }),
    unreads: t.field({
      // From the retained live directory (sync/logs.ts keeps it loaded while the stamp is retained).
      zulip: { cost: { perBatch: 1, directory: true } },
      type: UnreadsRef,
      nullable: true,
      description: 'The unread counts now (the whole summary); null when `resyncRequired`.',
      resolve: (c, _args, ctx) => (c.answer.resyncRequired ? null : unreads(ctx)),
    }),
    users: t.field({
      // From the retained live directory (sync/logs.ts keeps it loaded while the stamp is retained).
      zulip: { cost: { perBatch: 1, directory: true } },
      type: UserChangesRef,
      description: 'Users added or changed (name, avatar, role, ...) and deactivated.',
      resolve: (c, _args, ctx) => objects(c.answer, 'user', (ids) => loadAll(ctx.loaders.users, ids)),
    }),
    channels: t.field({
      // From the retained live directory (sync/logs.ts keeps it loaded while the stamp is retained).
      zulip: { cost: { perBatch: 1, directory: true } },
      type: ChannelChangesRef,
      description: 'Channels created or changed (renamed, described, ...) and deleted.',
      resolve: (c, _args, ctx) => objects(c.answer, 'channel', (ids) => loadAll(ctx.loaders.channels, ids)),
    }),
    userGroups: t.field({
      // From the retained live directory (sync/logs.ts keeps it loaded while the stamp is retained).
      zulip: { cost: { perBatch: 1, directory: true } },
      type: UserGroupChangesRef,
      description: 'User groups created or changed (members, name, ...) and deleted.',
      resolve: (c, _args, ctx) => objects(c.answer, 'userGroup', (ids) => loadAll(ctx.loaders.userGroups, ids)),
    }),
    subscriptions: t.field({
      // From the retained live directory (sync/logs.ts keeps it loaded while the stamp is retained).
      zulip: { cost: { perBatch: 1, directory: true } },
      type: SubscriptionChangesRef,
      description: "The caller's subscriptions added or changed (color, muting, ...), and the channels left.",
      resolve: (c, _args, ctx) => objects(c.answer, 'subscription', (ids, directory) => subscriptionsById(ctx, ids, directory)),
    }),
    settings: t.field({
      type: [SettingChangeRef],
      description: "The caller's settings changed since the stamp, at their final values.",
      resolve: (c) => [...(changeSet(c.answer)?.settings ?? [])].map(([wire, value]) => ({ name: camelCase(wire), value })),
    }),
    otherEvents: t.field({
      type: ['JSON'],
      description:
        'Everything else a client would learn from Zulip\'s registration (organization settings, emoji, user status, topic preferences, muted users, ...): ' +
        'the events as Zulip sends them (https://zulip.com/api/get-events), only the last one about each thing, oldest first.',
      resolve: (c) => changeSet(c.answer)?.others ?? [],
    }),
  }),
});

/** From the directory (no call); the subscription list upstream only when the directory is not loaded. */
async function subscriptionsById(ctx: Context, ids: number[], directory: Directory | undefined): Promise<(Subscription | undefined)[]> {
  const known = directory?.subscriptionsById(ids);
  if (known) return known;
  const { subscriptions } = await getSubscriptions(ctx.connection, {});
  return ids.map((id) => subscriptions.find((s) => s.stream_id === id));
}

builder.queryField('changes', (t) =>
  t.field({
    type: ChangesRef,
    description:
      'What changed for the caller since `since` (the `extensions.stamp` of an earlier answer, or a previous `changes.stamp`), compacted to final states, ' +
      'from the changes the gateway retained for this credential: no upstream call. `resyncRequired` says when it cannot answer. See docs/mobile-sync.md.',
    zulip: { cost: { each: 0 }, live: [] },
    args: { since: t.arg.string({ required: true, description: 'A stamp this gateway gave the same credential.' }) },
    resolve: (_root, args, ctx) => {
      requireCredentials(ctx);
      if (args.since.length > MAX_STAMP_LENGTH) throw badInput(`\`since\` is not a stamp (at most ${MAX_STAMP_LENGTH} characters).`, { argument: 'since', maxLength: MAX_STAMP_LENGTH });
      if (!ctx.sync) throw new GraphQLError('Changes are not kept by this gateway.', { extensions: { code: GatewayErrorCode.internal } });
      return ctx.sync.changes(ctx.connection, args.since).then((answer) => ({ answer }));
    },
  }),
);

builder.queryField('stamp', (t) =>
  t.string({
    nullable: true,
    description:
      "The position of the caller's event stream this answer reflects (also in `extensions.stamp`). Selecting it makes a credential's first query wait " +
      'for its event queue to be registered (at most 5 s), so that even that answer has a stamp; null without credentials, or when no queue could be registered. See docs/mobile-sync.md.',
    zulip: { cost: { each: 0 }, live: [] },
    resolve: (_root, _args, ctx) => ctx.stampNow ?? null,
  }),
);
