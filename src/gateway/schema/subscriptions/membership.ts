/**
 * Joining and leaving channels: the `subscribe` and `unsubscribe` mutations, their payloads and
 * the `SubscriptionChange` entries `updateSubscriptions` (update.ts) shares.
 * https://zulip.com/api/subscribe, https://zulip.com/api/unsubscribe
 */
import type { SubscriptionRequest } from '../../../zulip/model/subscriptions.js';
import { subscribe, unsubscribe, type Principals } from '../../../zulip/routes/subscriptions.js';
import { featureLevels } from '../../../zulip/feature-levels.js';
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import { badInput } from '../../errors.js';
import { requireFeatureLevel } from '../../upstream/feature-level.js';
import { ChannelDoesNotExistError } from '../../typed-errors.js';
import { MessageRetentionInput, toWireRetention } from '../channels/update.js';
import { channelGroupArgs, channelGroupSettings, type ChannelGroupArgs } from '../channels/group-args.js';
import { loadUsers } from '../group-settings.js';
import { UserRef } from '../users.js';
import { userLookupCost } from '../../upstream/cost.js';

/** One user's entry of a subscribe result. */
export interface SubscriptionChange {
  key: string;
  channel_names: string[];
}

export const SubscriptionChangeRef = builder.objectRef<SubscriptionChange>('SubscriptionChange').implement({
  description: 'The channels one user was (or already was) subscribed to by a subscribe call.',
  fields: (t) => ({
    userId: t.field({
      type: 'Long',
      nullable: true,
      description: 'The user; null when the server identified users by email (before feature level 289).',
      resolve: (e) => (/^\d+$/.test(e.key) ? Number(e.key) : null),
    }),
    email: t.string({
      nullable: true,
      description: 'The API email of the user, when the server identified users by email (before feature level 289).',
      resolve: (e) => (/^\d+$/.test(e.key) ? null : e.key),
    }),
    user: t.field({
      zulip: { cost: userLookupCost },
      type: UserRef,
      nullable: true,
      description: 'The user, when identified by ID and visible to the caller.',
      resolve: async (e, _args, ctx) => (/^\d+$/.test(e.key) ? ((await loadUsers(ctx, [Number(e.key)]))[0] ?? null) : null),
    }),
    channelNames: t.field({ type: ['String'], description: 'Channel names.', resolve: (e) => e.channel_names }),
  }),
});

/** A subscribe result's map, as SubscriptionChange entries. */
export function changeEntries(m: Record<string, string[]> | undefined): SubscriptionChange[] {
  // Keys are user IDs from feature level 289 and API emails before; SubscriptionChange tells them apart.
  return Object.entries(m ?? {}).map(([key, names]) => ({ key, channel_names: names }));
}

interface SubscribePayload {
  subscribed: SubscriptionChange[];
  already_subscribed: SubscriptionChange[];
  unauthorized: string[];
}

const SubscribePayloadRef = builder.objectRef<SubscribePayload>('SubscribePayload').implement({
  description: 'What a subscribe call did.',
  fields: (t) => ({
    subscribed: t.field({
      type: [SubscriptionChangeRef],
      description: 'Newly subscribed users and their channels.',
      resolve: (p) => p.subscribed,
    }),
    alreadySubscribed: t.field({
      type: [SubscriptionChangeRef],
      description: 'Users who already were subscribed, and to which channels.',
      resolve: (p) => p.already_subscribed,
    }),
    unauthorized: t.field({
      type: ['String'],
      description: 'Channels the caller may not join (only with authorizationErrorsFatal: false).',
      resolve: (p) => p.unauthorized,
    }),
  }),
});

interface UnsubscribePayload {
  removed: string[];
  not_removed: string[];
}

const UnsubscribePayloadRef = builder.objectRef<UnsubscribePayload>('UnsubscribePayload').implement({
  description: 'What an unsubscribe call did.',
  fields: (t) => ({
    removed: t.field({ type: ['String'], description: 'Channels unsubscribed from (one entry per user and channel).', resolve: (p) => p.removed }),
    notRemoved: t.field({
      type: ['String'],
      description: 'Channels a user was not subscribed to (one entry per user and channel).',
      resolve: (p) => p.not_removed,
    }),
  }),
});

// ---- inputs --------------------------------------------------------------------------------------

export interface SubscribeChannelInputShape {
  name: string;
  description?: string | null;
  color?: string | null;
}

export const SubscribeChannelInput = builder.inputRef<SubscribeChannelInputShape>('SubscribeChannelInput').implement({
  description: 'A channel to subscribe to, by name; it is created if it does not exist.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'The channel name.' }),
    description: t.string({ required: false, description: 'Description (Markdown) of a channel this call creates.' }),
    color: t.string({ required: false, description: "The subscribers' color for the channel, #rrggbb." }),
  }),
});

/** `principals` (user IDs, feature level 9) or `principalEmails`, never both; undefined for the caller. */
async function readPrincipals(
  ctx: Context,
  ids: readonly number[] | null | undefined,
  emails: readonly string[] | null | undefined,
): Promise<Principals | undefined> {
  if (ids != null && emails != null) throw badInput('Give principals (user IDs) or principalEmails, not both.');
  if (ids != null) {
    await requireFeatureLevel(ctx, featureLevels.principalIds, 'Naming users by ID in principals');
    return [...ids];
  }
  return emails != null ? [...emails] : undefined;
}

/** The channels to subscribe to, as Zulip's `subscriptions` (or `add`) list takes them. */
export function toSubscriptionRequests(channels: readonly SubscribeChannelInputShape[]): SubscriptionRequest[] {
  return channels.map((c) => ({
    name: c.name,
    ...(c.description != null && { description: c.description }),
    ...(c.color != null && { color: c.color }),
  }));
}

builder.mutationFields((t) => ({
  subscribe: t.field({
    zulip: { reaches: ['subscribe'], writes: ['subscription'] },
    type: SubscribePayloadRef,
    description:
      'Subscribes users (default: the caller) to channels by name, creating those that do not exist with the ' +
      'settings given. Refusals are GraphQL errors with the server code.',
    args: {
      channels: t.arg({ type: [SubscribeChannelInput], required: true, description: 'The channels.' }),
      principals: t.arg({ type: ['Long'], required: false, description: 'Users to subscribe, by ID (feature level 9).' }),
      principalEmails: t.arg.stringList({ required: false, description: 'Users to subscribe, by API email (older servers).' }),
      authorizationErrorsFatal: t.arg.boolean({
        required: false,
        description: 'Fail on a channel the caller may not join (default true) instead of listing it in unauthorized.',
      }),
      announce: t.arg.boolean({ required: false, description: 'Announce channels this call creates (default false).' }),
      inviteOnly: t.arg.boolean({ required: false, description: 'Create channels private (default false).' }),
      isWebPublic: t.arg.boolean({ required: false, description: 'Create channels web-public (default false).' }),
      isDefault: t.arg.boolean({ required: false, description: 'Make created channels default channels (default false).' }),
      historyPublicToSubscribers: t.arg.boolean({
        required: false,
        description: 'Whether new subscribers of created private channels see older messages.',
      }),
      messageRetentionDays: t.arg({
        type: MessageRetentionInput,
        required: false,
        description: 'Retention of created channels (organization owners only).',
      }),
      ...channelGroupArgs(t, 'channels this call creates'),
    },
    resolve: async (_root, args, ctx) => {
      const a = args as typeof args & ChannelGroupArgs;
      const principals = await readPrincipals(ctx, a.principals, a.principalEmails);
      const groups = await channelGroupSettings(ctx, a);
      const result = await subscribe(ctx.connection, {
        subscriptions: toSubscriptionRequests(a.channels),
        principals,
        authorizationErrorsFatal: a.authorizationErrorsFatal ?? undefined,
        announce: a.announce ?? undefined,
        inviteOnly: a.inviteOnly ?? undefined,
        isWebPublic: a.isWebPublic ?? undefined,
        isDefaultStream: a.isDefault ?? undefined,
        historyPublicToSubscribers: a.historyPublicToSubscribers ?? undefined,
        messageRetentionDays: a.messageRetentionDays ? toWireRetention(a.messageRetentionDays) : undefined,
        ...groups,
      });
      return {
        subscribed: changeEntries(result.subscribed),
        already_subscribed: changeEntries(result.already_subscribed),
        unauthorized: result.unauthorized ?? [],
      };
    },
  }),
  unsubscribe: t.field({
    zulip: { reaches: ['unsubscribe'], writes: ['subscription'] },
    type: UnsubscribePayloadRef,
    errors: { types: [ChannelDoesNotExistError] },
    description:
      'Unsubscribes users (default: the caller) from channels by name. Removing others needs administration ' +
      'rights, can_remove_subscribers_group, or owning the bot. An unknown channel is a ChannelDoesNotExistError ' +
      'result; other refusals are GraphQL errors with the server code.',
    args: {
      channelNames: t.arg.stringList({ required: true, description: 'The channels, by name.' }),
      principals: t.arg({ type: ['Long'], required: false, description: 'Users to unsubscribe, by ID (feature level 9).' }),
      principalEmails: t.arg.stringList({ required: false, description: 'Users to unsubscribe, by API email (older servers).' }),
    },
    resolve: async (_root, args, ctx) => {
      const principals = await readPrincipals(ctx, args.principals, args.principalEmails);
      return unsubscribe(ctx.connection, { subscriptions: [...args.channelNames], principals });
    },
  }),
}));
