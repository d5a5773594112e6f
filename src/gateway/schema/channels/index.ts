/**
 * Channels and topics: the `Channel` and `Topic` types (backed by the wire channel of
 * `GET /streams` and the topic entry of `GET /users/me/{stream_id}/topics`), the `channels`,
 * `channel` and `topics` queries and the lookups by name and email address; the `updateChannel`
 * and `archiveChannel` mutations are in update.ts.
 * https://zulip.com/api/get-streams
 *
 * The caller's `Channel.subscription` is added by subscriptions/index.ts, which owns that type.
 */
import type { Channel, GroupSettingValue } from '../../../zulip/model/channels.js';
import { getStreamEmailAddress, getStreamId, getStreams, getStreamTopics } from '../../../zulip/routes/channels.js';
import { featureLevels } from '../../../zulip/feature-levels.js';
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { badInput, isNotFound, notFoundError } from '../../errors.js';
import { invalidGlobalId } from '../../global-ids.js';
import { requireFeatureLevel } from '../../upstream/feature-level.js';
import { GroupSettingValueRef } from '../group-settings.js';
import { memoKey } from '../../loaders/index.js';
import { asNode, lookupNodeCost } from '../node.js';
import { UserRef, userOrNull } from '../users.js';
import { channelLookupCost, userLookupCost } from '../../upstream/cost.js';

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
      zulip: { cost: channelLookupCost },
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
  zulip: { entity: { resource: 'Channel', id: (channel) => channel.stream_id } },
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
      zulip: { cost: userLookupCost },
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
      zulip: { cost: { each: 1 } },
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
    zulip: { reaches: ['get-streams'], cost: { each: 1, size: { directory: 'channels' } }, live: ['Channels'] },
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
    zulip: { reaches: ['get-stream-by-id'], cost: channelLookupCost, live: ['Channels'] },
    type: ChannelRef,
    nullable: true,
    description: 'One channel by ID (archived ones too); NOT_FOUND when it does not exist or the caller cannot see it.',
    args: { id: t.arg({ type: 'Long', required: true, description: 'The channel ID.' }) },
    resolve: (_root, args, ctx) => ctx.loaders.channel(args.id),
  }),
  topics: t.field({
    zulip: { reaches: ['get-stream-topics'], live: ['Topics'] },
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
    zulip: { reaches: ['get-stream-id'], live: ['Channels'] },
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
    zulip: { reaches: ['get-stream-email-address'], live: ['Channels'] },
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
