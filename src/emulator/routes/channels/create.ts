/**
 * Channel creation: `POST /channels/create` (https://zulip.com/api/create-channel, feature level
 * 417), and the channel record that subscribing to an unknown name creates (subscriptions/subscribe.ts).
 *
 * Creating a channel takes the settings subscribe takes, checked the same way, plus the users to
 * subscribe (by ID) and a channel folder (feature level 389). Unlike subscribing, an existing name
 * is an error: 409 CHANNEL_ALREADY_EXISTS.
 */
import type { ChannelPermissionSetting } from '../../../zulip/model/channels.js';
import type { RouteContext } from '../../context.js';
import { ApiError, badRequest } from '../../errors.js';
import { addChannel, subscribe as addSubscription } from '../../factory.js';
import { CHANNEL_PERMISSION_SETTINGS, Role, type Channel, type GroupSettingValue, type User } from '../../store.js';
import { notifySubscribed } from '../subscriptions/notify.js';
import { notifyAccessChange, notifyDefaultStreams } from './events.js';
import { accessFolder } from './folders.js';
import { checkCanMakeWebPublic, checkChannelName, checkDescription, parseChannelGroupSetting, readRetentionDays } from './rules.js';

/** The name and description of a channel to create, already validated. */
export interface NewChannelRequest {
  name: string;
  description?: string;
}

/** The settings of channels to create, as subscribe and create-channel read them. */
export interface CreateOptions {
  inviteOnly: boolean;
  isWebPublic: boolean;
  isDefault: boolean;
  history: boolean | undefined;
  retention: number | null;
  groups: Partial<Record<ChannelPermissionSetting, GroupSettingValue>>;
}

/** Reads the channel settings both endpoints take (all JSON-encoded, as Zulip's views declare them). */
export function readNewChannelOptions(ctx: RouteContext): CreateOptions {
  const { params } = ctx;
  const groups: CreateOptions['groups'] = {};
  for (const setting of CHANNEL_PERMISSION_SETTINGS) {
    const raw = params.optJson<unknown>(setting);
    if (raw !== undefined && raw !== null) groups[setting] = parseChannelGroupSetting(ctx.store, setting, raw);
  }
  return {
    inviteOnly: params.bool('invite_only', false),
    isWebPublic: params.bool('is_web_public', false),
    isDefault: params.bool('is_default_stream', false),
    history: params.optBool('history_public_to_subscribers'),
    retention: readRetentionDays(params) ?? null,
    groups,
  };
}

/** The checks Zulip makes before creating channels with these settings. */
export function checkNewChannelOptions(ctx: RouteContext, o: CreateOptions): void {
  const { store, user } = ctx;
  if (o.inviteOnly && o.isWebPublic) throw badRequest('Invalid parameters');
  if (o.isDefault && !store.isAdmin(user)) throw badRequest('Insufficient permission');
  if (o.inviteOnly && o.isDefault) throw badRequest('A default channel cannot be private.');
  if (o.isWebPublic) checkCanMakeWebPublic(store, user);
  if (o.retention !== null && user.role !== Role.OWNER) throw badRequest('Must be an organization owner');
}

/** A new channel with Zulip's defaults for the settings not given. */
export function newChannel(ctx: RouteContext, request: NewChannelRequest, o: CreateOptions): Channel {
  const { store, user } = ctx;
  const nobody = store.systemGroupId('role:nobody');
  return addChannel(
    store,
    {
      name: request.name,
      description: request.description ?? '',
      date_created: ctx.nowSeconds(),
      creator_id: user.user_id,
      invite_only: o.inviteOnly,
      is_web_public: o.isWebPublic,
      // Public channels always share their history; private ones protect it unless asked.
      history_public_to_subscribers: o.inviteOnly ? (o.history ?? false) : true,
      message_retention_days: o.retention,
      can_add_subscribers_group: o.groups.can_add_subscribers_group ?? nobody,
      can_remove_subscribers_group: o.groups.can_remove_subscribers_group ?? store.systemGroupId('role:administrators'),
      // By default the creator administers the channel.
      can_administer_channel_group: o.groups.can_administer_channel_group ?? { direct_members: [user.user_id], direct_subgroups: [] },
      can_send_message_group: o.groups.can_send_message_group ?? store.systemGroupId('role:everyone'),
      can_subscribe_group: o.groups.can_subscribe_group ?? nobody,
    },
    ctx.clock.now(),
  );
}

/** The users to subscribe, by ID: each must exist and be active. */
function readSubscribers(ctx: RouteContext): User[] {
  const users = new Map<number, User>();
  for (const id of ctx.params.intArray('subscribers')) {
    const user = ctx.store.userById(id);
    if (!user) throw badRequest('No such user');
    if (!user.is_active) throw badRequest('User is deactivated');
    users.set(id, user);
  }
  return [...users.values()];
}

/** https://zulip.com/api/create-channel */
export function createChannel(ctx: RouteContext): Record<string, unknown> {
  const { store, user, settings, params } = ctx;
  if (store.isGuest(user)) throw badRequest('Not allowed for guest users');
  const name = checkChannelName(settings, params.str('name').trim());
  const rawDescription = params.optStr('description');
  const description = rawDescription === undefined ? undefined : checkDescription(settings, 'description', rawDescription);
  const subscribers = readSubscribers(ctx);
  params.bool('announce', false); // accepted; the emulator has no notification bot
  const options = readNewChannelOptions(ctx);
  const folderId = params.optJson<unknown>('folder_id');
  if (folderId !== undefined && folderId !== null && !Number.isSafeInteger(folderId)) throw badRequest('folder_id is not an integer');
  const folder = typeof folderId === 'number' ? accessFolder(store, folderId) : undefined;
  if (store.channelByName(name)) throw new ApiError('CHANNEL_ALREADY_EXISTS', `Channel '${name}' already exists`, 409);
  checkNewChannelOptions(ctx, options);

  const channel = newChannel(ctx, { name, description }, options);
  channel.folder_id = folder?.id ?? null;
  if (options.isDefault) {
    store.defaultChannelIds.add(channel.stream_id);
    notifyDefaultStreams(ctx);
  }
  for (const u of subscribers) addSubscription(store, channel.stream_id, u.user_id);
  if (subscribers.length === 0) {
    notifyAccessChange(ctx, channel, new Set());
  } else {
    const ids = new Set(subscribers.map((u) => u.user_id));
    notifySubscribed(ctx, new Map(subscribers.map((u) => [u, [channel]])), new Map([[channel.stream_id, ids]]), new Map([[channel.stream_id, new Set()]]));
  }
  return { id: channel.stream_id };
}
