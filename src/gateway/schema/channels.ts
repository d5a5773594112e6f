/**
 * Channels and topics: the `Channel` and `Topic` types (backed by the wire channel of
 * `GET /streams` and the topic entry of `GET /users/me/{stream_id}/topics`), the `channels`,
 * `channel` and `topics` queries, and the `updateChannel` and `archiveChannel` mutations.
 * https://zulip.com/api/get-streams, https://zulip.com/api/update-stream
 *
 * The caller's `Channel.subscription` is added by subscriptions.ts, which owns that type.
 */
import type { Channel, GroupSettingValue, MessageRetentionDaysParam } from '../../zulip/model/channels.js';
import { ZulipErrorCode } from '../../zulip/error-codes.js';
import { ZulipApiError } from '../../zulip/errors.js';
import {
  archiveStream,
  getStreamById,
  getStreamEmailAddress,
  getStreamId,
  getStreams,
  getStreamTopics,
  updateStream,
} from '../../zulip/routes/channels.js';
import { getOwnUser } from '../../zulip/routes/users.js';
import { featureLevels } from '../../zulip/feature-levels.js';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { badInput, isNotFound, notFoundError } from '../errors.js';
import { invalidGlobalId } from '../global-ids.js';
import { getFeatureLevel, requireFeatureLevel } from '../feature-level.js';
import {
  GroupSettingUpdateInput,
  GroupSettingValueRef,
  toWireGroupSettingUpdate,
  type GroupSettingUpdateInputShape,
} from './group-settings.js';
import { memoKey } from '../loaders/index.js';
import { asNode, lookupNodeCost } from './node.js';
import { UserRef, userOrNull } from './users.js';
import { channelLookupCost, upstreamCost, userLookupCost } from '../upstream-cost.js';
import { reaches } from '../zulip-operations.js';

// ---- helpers shared with subscriptions and user topics --------------------------------------------

/** A channel by ID through the request's loader, for a field whose source may have no channel (null). */
export function loadChannel(ctx: Context, id: number | null | undefined): Channel | Promise<Channel> | null {
  return id == null ? null : ctx.loaders.channel(id);
}

/** A channel by ID through the request's loader; null for one the caller cannot see. */
export async function channelOrNull(ctx: Context, id: number): Promise<Channel | null> {
  const [channel] = await ctx.loaders.channels.loadMany([id]);
  if (isNotFound(channel)) return null;
  if (channel instanceof Error) throw channel;
  return channel ?? null;
}

/** Puts fresh channels into this request's loader (replacing anything cached). */
export function primeChannels(ctx: Context, channels: readonly Channel[]): void {
  for (const channel of channels) ctx.loaders.channels.clear(channel.stream_id).prime(channel.stream_id, channel);
}

// ---- types ---------------------------------------------------------------------------------------

export const ChannelRef = builder.objectRef<Channel>('Channel');

/** A topic entry plus the channel it was listed for. */
interface TopicEntry {
  name: string;
  max_id: number;
  stream_id: number;
}

export const TopicRef = builder.objectRef<TopicEntry>('Topic').implement({
  description: 'A topic of a channel, as the caller can see it. https://zulip.com/api/get-stream-topics',
  fields: (t) => ({
    name: t.exposeString('name', {
      description:
        'The topic name. The empty topic is "" when asked with allowEmptyTopicName, otherwise the ' +
        "organization's display name for it.",
    }),
    maxId: t.field({ type: 'Long', description: 'ID of the newest message in the topic.', resolve: (topic) => topic.max_id }),
    channelId: t.field({ type: 'Long', description: 'The channel of the topic.', resolve: (topic) => topic.stream_id }),
    channel: t.field({
      type: ChannelRef,
      description: 'The channel of the topic.',
      extensions: channelLookupCost,
      resolve: (topic, _args, ctx) => ctx.loaders.channel(topic.stream_id),
    }),
  }),
});

/** The five channel permissions: GraphQL name, wire name, what it decides. */
const PERMISSIONS = [
  ['canAddSubscribersGroup', 'can_add_subscribers_group', 'Who may add other users as subscribers (feature level 342).'],
  ['canRemoveSubscribersGroup', 'can_remove_subscribers_group', 'Who may unsubscribe others (with access to the channel).'],
  ['canAdministerChannelGroup', 'can_administer_channel_group', 'Who may administer the channel, besides organization administrators (feature level 325).'],
  ['canSendMessageGroup', 'can_send_message_group', 'Who may post to the channel (feature level 333).'],
  ['canSubscribeGroup', 'can_subscribe_group', 'Who may subscribe themselves (feature level 357); everyone but guests may already join public channels.'],
] as const;

ChannelRef.implement({
  description: 'A channel (stream): public, web-public or private, active or archived. https://zulip.com/help/channel-permissions',
  fields: (t) => ({
    zulipId: t.field({ type: 'Long', description: 'The channel ID (Zulip\u2019s own ID, as its REST API gives it; the same field name on every type).', resolve: (c) => c.stream_id }),
    name: t.exposeString('name', { description: 'The channel name.' }),
    description: t.exposeString('description', { description: 'The description, as Markdown.' }),
    renderedDescription: t.exposeString('rendered_description', { description: 'The description, as HTML.' }),
    isArchived: t.boolean({
      description: 'Whether the channel is archived (false on servers before feature level 315, which hide archived channels).',
      resolve: (c) => c.is_archived ?? false,
    }),
    dateCreated: t.field({
      type: 'Long',
      nullable: true,
      description: 'When the channel was created, in UNIX seconds (UTC); null from very old servers.',
      resolve: (c) => c.date_created ?? null,
    }),
    creatorId: t.field({
      type: 'Long',
      nullable: true,
      description: 'Who created the channel; null when not recorded.',
      resolve: (c) => c.creator_id ?? null,
    }),
    creator: t.field({
      type: UserRef,
      nullable: true,
      description: 'Who created the channel; null when not recorded or not visible to the caller.',
      extensions: userLookupCost,
      resolve: (c, _args, ctx) => (c.creator_id == null ? null : userOrNull(ctx, c.creator_id)),
    }),
    isPrivate: t.boolean({
      description: 'Whether the channel is private (invite-only): only subscribers see its content.',
      resolve: (c) => c.invite_only,
    }),
    isWebPublic: t.exposeBoolean('is_web_public', { description: 'Whether visitors without an account may read the channel.' }),
    historyPublicToSubscribers: t.exposeBoolean('history_public_to_subscribers', {
      description:
        'Whether new subscribers see the messages sent before they joined. Always true for public channels today, ' +
        'but do not rely on it.',
    }),
    messageRetentionDays: t.int({
      nullable: true,
      description: 'Days messages are kept; null follows the organization setting, -1 keeps them forever.',
      resolve: (c) => c.message_retention_days ?? null,
    }),
    firstMessageId: t.field({
      type: 'Long',
      nullable: true,
      description: 'ID of the oldest message; null for a channel without messages.',
      resolve: (c) => c.first_message_id ?? null,
    }),
    isRecentlyActive: t.boolean({
      nullable: true,
      description: 'Whether the channel had recent activity; null when the server does not say.',
      resolve: (c) => c.is_recently_active ?? null,
    }),
    streamWeeklyTraffic: t.int({
      nullable: true,
      description: 'Estimated messages per week, rounded; null when the server gives no estimate (new channels).',
      resolve: (c) => c.stream_weekly_traffic ?? null,
    }),
    isDefault: t.boolean({
      nullable: true,
      description:
        'Whether new users are subscribed by default. Known only when listed with `channels(includeDefault: true)`; ' +
        'null otherwise.',
      resolve: (c) => c.is_default ?? null,
    }),
    ...Object.fromEntries(
      PERMISSIONS.map(([name, wire, description]) => [
        name,
        t.field({
          type: GroupSettingValueRef,
          nullable: true,
          description: `${description} Null when the server does not send it (older servers).`,
          resolve: (c: Channel) => (c[wire] as GroupSettingValue | undefined) ?? null,
        }),
      ]),
    ) as Record<(typeof PERMISSIONS)[number][0], ReturnType<typeof t.field>>,
    streamPostPolicy: t.int({
      description: 'Who may post: 1 anyone, 2 administrators, 3 full members, 4 moderators.',
      deprecationReason: 'Inaccurate since posting became group-controlled; use canSendMessageGroup.',
      resolve: (c) => c.stream_post_policy,
    }),
    isAnnouncementOnly: t.boolean({
      description: 'Whether only administrators may post.',
      deprecationReason: 'Use canSendMessageGroup.',
      resolve: (c) => c.is_announcement_only,
    }),
    topics: t.field({
      extensions: upstreamCost({ each: 1 }),
      type: [TopicRef],
      description:
        'The topics the caller can see, newest first (one upstream request per channel). In a private channel ' +
        'with protected history, only topics of messages sent after the caller joined.',
      args: {
        allowEmptyTopicName: t.arg.boolean({
          required: false,
          defaultValue: false,
          description: 'Name the empty topic "" rather than with the organization\'s display name (feature level 334).',
        }),
      },
      resolve: (c, args, ctx) => channelTopics(ctx, c.stream_id, args.allowEmptyTopicName ?? false),
    }),
  }),
});

asNode(ChannelRef, { key: (c) => c.stream_id, load: (id, ctx) => ctx.loaders.channel(id), cost: lookupNodeCost });

/** A topic's key: its channel ID and name (Zulip gives topics no ID of their own). */
function topicKey(topic: TopicEntry): string {
  return `${topic.stream_id}:${topic.name}`;
}

// Looked up in its channel's topic list, as `topics(channelId:)` lists it (the same refusal when
// the caller may not read the channel); the empty topic's key has the name "".
/** The topics of each channel a `node`/`nodes` request asked for, by channel and empty-name flag. */
const nodeTopics = memoKey<Map<string, Promise<TopicEntry[]>>>('node topics');

asNode(TopicRef, {
  key: topicKey,
  keyKind: 'string',
  // One call per channel named, whatever the number of its topics asked for.
  cost: (keys) => new Set(keys.map((key) => key.slice(0, Math.max(0, key.indexOf(':'))))).size,
  load: async (key, ctx) => {
    const separator = key.indexOf(':');
    const channelId = separator > 0 && /^\d{1,16}$/.test(key.slice(0, separator)) ? Number(key.slice(0, separator)) : Number.NaN;
    if (!Number.isSafeInteger(channelId)) throw invalidGlobalId(`Topic:${key}`, 'a Topic key is a channel ID and a name');
    const name = key.slice(separator + 1);
    // Topic ids of one channel share one `GET /users/me/{stream_id}/topics` per request.
    const topics = await ctx.loaders.memo.getFor(nodeTopics, `${channelId} ${name === ''}`, () => channelTopics(ctx, channelId, name === ''));
    const topic = topics.find((t) => t.name === name);
    if (!topic) throw notFoundError(`No topic ${JSON.stringify(name)} exists in channel ${channelId} or is visible to you.`);
    return topic;
  },
});

async function channelTopics(ctx: Context, channelId: number, allowEmptyTopicName: boolean): Promise<TopicEntry[]> {
  if (allowEmptyTopicName) await requireFeatureLevel(ctx, featureLevels.emptyTopicName, 'allowEmptyTopicName');
  const { topics } = await getStreamTopics(ctx.connection, {
    streamId: channelId,
    allowEmptyTopicName: allowEmptyTopicName || undefined,
  });
  return topics.map((topic) => ({ ...topic, stream_id: channelId }));
}

// ---- queries -------------------------------------------------------------------------------------

builder.queryFields((t) => ({
  channels: t.field({
    // One call, however many channels; what is selected under each channel counts once per channel.
    extensions: { ...reaches('get-streams'), ...upstreamCost({ each: 1, size: { directory: 'channels' } }) },
    type: [ChannelRef],
    nullable: true,
    description:
      'Channels the caller can see, by name, filtered as `GET /streams` does (each argument is that flag; ' +
      'unset ones keep the server default). One upstream request, shared with nested channels.',
    args: {
      includePublic: t.arg.boolean({ required: false, description: 'Public channels (server default true).' }),
      includeWebPublic: t.arg.boolean({ required: false, description: 'Web-public channels (server default false).' }),
      includeSubscribed: t.arg.boolean({ required: false, description: "The caller's subscriptions (server default true)." }),
      excludeArchived: t.arg.boolean({
        required: false,
        description: 'Leave archived channels out (server default true; false needs feature level 315).',
      }),
      includeAll: t.arg.boolean({
        required: false,
        description: 'Every channel the caller can see exists (server default false; feature level 356).',
      }),
      includeDefault: t.arg.boolean({ required: false, description: 'Fill in isDefault (server default false).' }),
      includeOwnerSubscribed: t.arg.boolean({
        required: false,
        description: "For bots: the channels the bot's owner is subscribed to (server default false).",
      }),
      includeCanAccessContent: t.arg.boolean({
        required: false,
        description: 'Every channel whose messages the caller may read (server default false).',
      }),
      includeAllActive: t.arg.boolean({
        required: false,
        description: 'Every active channel; administrators only.',
        deprecationReason: 'Use includeAll.',
      }),
    },
    resolve: async (_root, args, ctx) => {
      if (args.excludeArchived === false) await requireFeatureLevel(ctx, featureLevels.archivedChannels, 'excludeArchived: false');
      if (args.includeAll) await requireFeatureLevel(ctx, featureLevels.includeAllChannels, 'includeAll');
      const { streams } = await getStreams(ctx.connection, {
        includePublic: args.includePublic ?? undefined,
        includeWebPublic: args.includeWebPublic ?? undefined,
        includeSubscribed: args.includeSubscribed ?? undefined,
        excludeArchived: args.excludeArchived ?? undefined,
        includeAll: args.includeAll ?? undefined,
        includeDefault: args.includeDefault ?? undefined,
        includeOwnerSubscribed: args.includeOwnerSubscribed ?? undefined,
        includeCanAccessContent: args.includeCanAccessContent ?? undefined,
        includeAllActive: args.includeAllActive ?? undefined,
      });
      primeChannels(ctx, streams);
      return streams;
    },
  }),
  channel: t.field({
    extensions: { ...reaches('get-stream-by-id'), ...channelLookupCost },
    type: ChannelRef,
    nullable: true,
    description: 'One channel by ID (archived ones too); NOT_FOUND when it does not exist or the caller cannot see it.',
    args: { id: t.arg({ type: 'Long', required: true, description: 'The channel ID.' }) },
    resolve: (_root, args, ctx) => ctx.loaders.channel(args.id),
  }),
  topics: t.field({
    extensions: reaches('get-stream-topics'),
    type: [TopicRef],
    nullable: true,
    description:
      'The topics of a channel the caller can read, newest first. BAD_REQUEST when the channel does not exist ' +
      'or the caller may not read it.',
    args: {
      channelId: t.arg({ type: 'Long', required: true, description: 'The channel.' }),
      allowEmptyTopicName: t.arg.boolean({
        required: false,
        defaultValue: false,
        description: 'Name the empty topic "" rather than with the organization\'s display name (feature level 334).',
      }),
    },
    resolve: (_root, args, ctx) => channelTopics(ctx, args.channelId, args.allowEmptyTopicName ?? false),
  }),
}));

// ---- lookups: a channel by name, a channel's email address ---------------------------------------

builder.queryField('channelByName', (t) =>
  t.field({
    extensions: reaches('get-stream-id'),
    type: ChannelRef,
    description:
      'The channel with this name (case-insensitive), resolved to its ID upstream and then loaded like `channel`. ' +
      "BAD_REQUEST \"Invalid channel name '…'\" when none exists or the caller cannot access it.",
    args: { name: t.arg.string({ required: true, description: 'The channel name.' }) },
    resolve: async (_root, args, ctx) => {
      if (args.name.trim() === '') throw badInput('name must not be empty');
      const { stream_id } = await getStreamId(ctx.connection, { stream: args.name });
      return ctx.loaders.channel(stream_id);
    },
  }),
);

builder.objectField(ChannelRef, 'emailAddress', (t) =>
  t.string({
    extensions: reaches('get-stream-email-address'),
    description:
      'The address that posts mail to this channel (feature level 226), as the email gateway bot or as `senderId`. ' +
      'Asked of the server on each read; BAD_REQUEST when the caller may not access the channel.',
    args: {
      senderId: t.arg({
        type: 'Long',
        required: false,
        description: 'Post as the caller or a bot the caller administers, instead of the email gateway bot (feature level 335).',
      }),
    },
    resolve: async (channel, args, ctx) => {
      if (args.senderId != null && args.senderId <= 0) throw badInput('senderId must be a positive user ID');
      await requireFeatureLevel(ctx, featureLevels.channelEmailAddress, 'Channel.emailAddress');
      if (args.senderId != null) await requireFeatureLevel(ctx, featureLevels.channelEmailSender, 'Channel.emailAddress(senderId)');
      const { email } = await getStreamEmailAddress(ctx.connection, { streamId: channel.stream_id, senderId: args.senderId ?? undefined });
      return email;
    },
  }),
);

// ---- mutations -----------------------------------------------------------------------------------

const MessageRetentionPolicyEnum = builder.enumType('MessageRetentionPolicy', {
  description: 'A message retention period that is not a number of days.',
  values: {
    REALM_DEFAULT: { value: 'realm_default', description: 'Follow the organization setting.' },
    UNLIMITED: { value: 'unlimited', description: 'Keep messages forever.' },
  } as const,
});

interface MessageRetentionInputShape {
  days?: number | null;
  policy?: 'realm_default' | 'unlimited' | null;
}

export const MessageRetentionInput = builder.inputRef<MessageRetentionInputShape>('MessageRetentionInput').implement({
  description: 'How long messages are kept: a number of days, or a policy. Exactly one field.',
  isOneOf: true,
  fields: (t) => ({
    days: t.int({ required: false, description: 'Delete messages this many days after they are sent (positive).' }),
    policy: t.field({ type: MessageRetentionPolicyEnum, required: false, description: 'REALM_DEFAULT or UNLIMITED.' }),
  }),
});

export function toWireRetention(input: MessageRetentionInputShape): MessageRetentionDaysParam {
  if (input.days != null) return input.days;
  if (input.policy != null) return input.policy;
  throw badInput('messageRetentionDays: give days or policy.');
}

/** The GraphQL argument, wire option and feature level of each permission update. */
const PERMISSION_UPDATES = [
  ['canAddSubscribersGroup', 'canAddSubscribersGroup', featureLevels.canAddSubscribersGroup],
  ['canRemoveSubscribersGroup', 'canRemoveSubscribersGroup', 0],
  ['canAdministerChannelGroup', 'canAdministerChannelGroup', featureLevels.canAdministerChannelGroup],
  ['canSendMessageGroup', 'canSendMessageGroup', featureLevels.canSendMessageGroup],
  ['canSubscribeGroup', 'canSubscribeGroup', featureLevels.canSubscribeGroup],
] as const;

/** Role IDs of https://zulip.com/api/roles-and-permissions. */
const OWNER_ROLE = 100;
const ADMINISTRATOR_ROLE = 200;

/**
 * Zulip applies a channel update step by step (privacy, default, retention, description, name,
 * permissions) with no transaction around them, so a later step's refusal leaves the earlier ones
 * applied. The role-gated steps (default channels: administrators; retention: owners) are checked
 * here first when an earlier step is asked too, at the cost of one `GET /users/me`.
 */
async function checkRoleBeforeLaterSteps(ctx: Context, asked: { privacy: boolean; isDefault: boolean; retention: boolean }): Promise<void> {
  const needsAdministrator = asked.isDefault && asked.privacy;
  const needsOwner = asked.retention && (asked.privacy || asked.isDefault);
  if (!needsAdministrator && !needsOwner) return;
  const { role } = await getOwnUser(ctx.connection);
  if (needsOwner && role > OWNER_ROLE) {
    throw badInput('updateChannel: messageRetentionDays needs an organization owner; nothing was changed.', { argument: 'messageRetentionDays' });
  }
  if (needsAdministrator && role > ADMINISTRATOR_ROLE) {
    throw badInput('updateChannel: isDefault needs an organization administrator; nothing was changed.', { argument: 'isDefault' });
  }
}

/** Re-reads a channel after a change; null when the caller can no longer see it. */
async function freshChannel(ctx: Context, id: number): Promise<Channel | null> {
  try {
    const { stream } = await getStreamById(ctx.connection, id);
    primeChannels(ctx, [stream]);
    return stream;
  } catch (error) {
    if (error instanceof ZulipApiError && error.code === ZulipErrorCode.badRequest) return null;
    throw error;
  }
}

builder.mutationFields((t) => ({
  updateChannel: t.field({
    extensions: reaches('update-stream'),
    type: ChannelRef,
    nullable: true,
    description:
      'Changes a channel (organization or channel administrators). Only the arguments given change. Returns the ' +
      'channel as it now is, or null when the caller can no longer see it. Refusals are GraphQL errors with the ' +
      'server code (BAD_REQUEST: "Invalid channel ID", "Invalid parameters", a stale `old` permission value...). ' +
      'The server applies privacy, isDefault, retention, description, name and permissions in that order and stops ' +
      'at a refusal; the role needed by isDefault or messageRetentionDays after a privacy change is checked first.',
    args: {
      id: t.arg({ type: 'Long', required: true, description: 'The channel.' }),
      description: t.arg.string({ required: false, description: 'New description (Markdown).' }),
      newName: t.arg.string({ required: false, description: 'New name.' }),
      isPrivate: t.arg.boolean({ required: false, description: 'Make the channel private (true) or public (false).' }),
      isWebPublic: t.arg.boolean({ required: false, description: 'Make the channel web-public (feature level 98).' }),
      historyPublicToSubscribers: t.arg.boolean({
        required: false,
        description: 'Whether new subscribers see older messages; false only for private channels.',
      }),
      isDefault: t.arg.boolean({ required: false, description: 'Add or remove it as a default channel (feature level 200).' }),
      messageRetentionDays: t.arg({
        type: MessageRetentionInput,
        required: false,
        description: 'How long messages are kept (organization owners only).',
      }),
      ...Object.fromEntries(
        PERMISSION_UPDATES.map(([name, , level]) => [
          name,
          t.arg({
            type: GroupSettingUpdateInput,
            required: false,
            description: `New value of ${name}${level ? ` (feature level ${level})` : ''}; with \`old\`, only if that is still current.`,
          }),
        ]),
      ) as Record<(typeof PERMISSION_UPDATES)[number][0], ReturnType<typeof t.arg>>,
    },
    resolve: async (_root, args, ctx) => {
      const a = args as typeof args & Partial<Record<(typeof PERMISSION_UPDATES)[number][0], GroupSettingUpdateInputShape | null>>;
      let needed = 0;
      const privacy = a.isPrivate != null || a.isWebPublic != null || a.historyPublicToSubscribers != null;
      if (a.isWebPublic != null) needed = Math.max(needed, featureLevels.channelWebPublic);
      if (a.historyPublicToSubscribers != null && a.isPrivate == null && a.isWebPublic == null) {
        needed = Math.max(needed, featureLevels.channelHistoryAlone);
      }
      if (a.isDefault != null) needed = Math.max(needed, featureLevels.channelDefault);
      const permissions: Record<string, ReturnType<typeof toWireGroupSettingUpdate>> = {};
      for (const [name, option, level] of PERMISSION_UPDATES) {
        const input = a[name];
        if (input == null) continue;
        permissions[option] = toWireGroupSettingUpdate(input, name);
        needed = Math.max(needed, level);
      }
      if (needed > 0) await requireFeatureLevel(ctx, needed, 'This channel change');
      if (privacy && (await getFeatureLevel(ctx)) < featureLevels.archivedChannelEdits) {
        const current = await channelOrNull(ctx, a.id);
        if (current?.is_archived) {
          await requireFeatureLevel(ctx, featureLevels.archivedChannelEdits, 'Changing the privacy of an archived channel');
        }
      }
      await checkRoleBeforeLaterSteps(ctx, { privacy, isDefault: a.isDefault != null, retention: a.messageRetentionDays != null });
      await updateStream(ctx.connection, {
        streamId: a.id,
        description: a.description ?? undefined,
        newName: a.newName ?? undefined,
        isPrivate: a.isPrivate ?? undefined,
        isWebPublic: a.isWebPublic ?? undefined,
        historyPublicToSubscribers: a.historyPublicToSubscribers ?? undefined,
        isDefaultStream: a.isDefault ?? undefined,
        messageRetentionDays: a.messageRetentionDays ? toWireRetention(a.messageRetentionDays) : undefined,
        ...permissions,
      });
      return freshChannel(ctx, a.id);
    },
  }),
  archiveChannel: t.field({
    extensions: reaches('archive-stream'),
    type: ChannelRef,
    nullable: true,
    description:
      'Archives a channel (organization or channel administrators). Returns the archived channel, or null when the ' +
      'server no longer shows it (before feature level 315).',
    args: { id: t.arg({ type: 'Long', required: true, description: 'The channel.' }) },
    resolve: async (_root, args, ctx) => {
      await archiveStream(ctx.connection, { streamId: args.id });
      return freshChannel(ctx, args.id);
    },
  }),
}));
