/** Bindings for channel subscriptions; every parameter here is `Json[...]` in Zulip (docs/zulip-parameters.md). */
import type { SendOptions, SendResult, ZulipConnection } from '../connection.js';
import type { GroupSettingValue, MessageRetentionDaysParam } from '../model/channels.js';
import type {
  GetSubscribersResult,
  GetSubscriptionsResult,
  GetSubscriptionStatusResult,
  GetUserChannelsResult,
  SubscribeResult,
  SubscriptionPropertyChange,
  SubscriptionRequest,
  UnsubscribeResult,
  UpdateSubscriptionsResult,
} from '../model/subscriptions.js';
import * as subscriptionOps from '../generated/subscriptions.js';

/** User IDs (preferred; feature level 9) or API email addresses; never a mix. */
export type Principals = number[] | string[];

/**
 * The caller's subscriptions.
 * https://zulip.com/api/get-subscriptions
 */
export function getSubscriptions(
  connection: ZulipConnection,
  options: { /** Add each channel's subscriber IDs. @default false (server side) */ includeSubscribers?: boolean } = {},
  call: SendOptions = {},
): Promise<SendResult<GetSubscriptionsResult>> {
  // Released views read `Json[bool]`; the current description documents the text "true" | "false" |
  // "partial": a boolean is the same text either way.
  const { includeSubscribers } = options;
  return subscriptionOps.getSubscriptions(connection, { includeSubscribers: includeSubscribers === undefined ? undefined : includeSubscribers ? 'true' : 'false' }, call);
}

export interface SubscribeOptions {
  /** Channels by name; those that do not exist are created. */
  subscriptions: SubscriptionRequest[];
  /** Whom to subscribe. @default the caller (server side) */
  principals?: Principals;
  /** Fail on a channel the caller may not join, instead of listing it in `unauthorized`. @default true (server side) */
  authorizationErrorsFatal?: boolean;
  /** Announce created channels. @default false (server side) */
  announce?: boolean;
  // The options below configure channels this call creates; existing channels ignore them.
  /** @default false (server side) */
  inviteOnly?: boolean;
  /** @default false (server side) */
  isWebPublic?: boolean;
  /** @default false (server side) */
  isDefaultStream?: boolean;
  /** @default true for public channels, false for private ones (server side) */
  historyPublicToSubscribers?: boolean;
  /** @default 'realm_default' (server side) */
  messageRetentionDays?: MessageRetentionDaysParam;
  canAddSubscribersGroup?: GroupSettingValue;
  canRemoveSubscribersGroup?: GroupSettingValue;
  canAdministerChannelGroup?: GroupSettingValue;
  canSendMessageGroup?: GroupSettingValue;
  canSubscribeGroup?: GroupSettingValue;
}

/**
 * Subscribes users to channels, creating channels that do not exist.
 * https://zulip.com/api/subscribe
 */
export function subscribe(
  connection: ZulipConnection,
  options: SubscribeOptions,
  call: SendOptions = {},
): Promise<SendResult<SubscribeResult>> {
  return subscriptionOps.subscribe(connection, options, call);
}

export interface UnsubscribeOptions {
  /** Channel names. */
  subscriptions: string[];
  /** Whom to unsubscribe. @default the caller (server side) */
  principals?: Principals;
}

/**
 * Unsubscribes users from channels. An unknown channel fails with `STREAM_DOES_NOT_EXIST` and its
 * name in `data.stream`.
 * https://zulip.com/api/unsubscribe
 */
export function unsubscribe(
  connection: ZulipConnection,
  options: UnsubscribeOptions,
  call: SendOptions = {},
): Promise<SendResult<UnsubscribeResult>> {
  return subscriptionOps.unsubscribe(connection, options, call);
}

/** One personal-setting change, camelCase. */
export interface SubscriptionSettingChange {
  streamId: number;
  property: SubscriptionPropertyChange['property'];
  value: boolean | string;
}

/**
 * Changes the caller's personal settings (color, muting, pinning, notifications) of channels
 * they are subscribed to; all changes in one call.
 * https://zulip.com/api/update-subscription-settings
 */
export function updateSubscriptionSettings(
  connection: ZulipConnection,
  options: { subscriptionData: SubscriptionSettingChange[] },
  call: SendOptions = {},
): Promise<SendResult<Record<string, never>>> {
  const subscriptionData: SubscriptionPropertyChange[] = options.subscriptionData.map((c) => ({
    stream_id: c.streamId,
    property: c.property,
    value: c.value,
  }));
  return subscriptionOps.updateSubscriptionSettings(connection, { subscriptionData }, call);
}

/**
 * The IDs of a channel's subscribers.
 * https://zulip.com/api/get-subscribers
 */
export function getSubscribers(
  connection: ZulipConnection,
  options: { streamId: number },
  call: SendOptions = {},
): Promise<SendResult<GetSubscribersResult>> {
  return subscriptionOps.getSubscribers(connection, options, call);
}

/**
 * Whether a user is subscribed to a channel.
 * https://zulip.com/api/get-subscription-status
 */
export function getSubscriptionStatus(
  connection: ZulipConnection,
  options: { userId: number; streamId: number },
  call: SendOptions = {},
): Promise<SendResult<GetSubscriptionStatusResult>> {
  return subscriptionOps.getSubscriptionStatus(connection, options, call);
}

/**
 * Changes one personal setting of one of the caller's subscriptions.
 * https://zulip.com/api/update-subscription-property
 */
export const updateSubscriptionProperty = (
  c: ZulipConnection,
  p: subscriptionOps.UpdateSubscriptionPropertyParams,
  call?: SendOptions,
): Promise<SendResult<object>> => subscriptionOps.updateSubscriptionProperty(c, p, call);

/**
 * Subscribes the caller to channels (`add`, creating those that do not exist) and unsubscribes
 * them from others (`delete`, by name) in one transaction.
 * https://zulip.com/api/update-subscriptions
 */
export const updateSubscriptions = (
  c: ZulipConnection,
  p: subscriptionOps.UpdateSubscriptionsParams,
  call?: SendOptions,
): Promise<SendResult<UpdateSubscriptionsResult>> => subscriptionOps.updateSubscriptions(c, p, call);

/**
 * The IDs of the channels a user is subscribed to, as far as the caller may see (feature level 440).
 * https://zulip.com/api/get-user-channels
 */
export const getUserChannels = (
  c: ZulipConnection,
  p: subscriptionOps.GetUserChannelsParams,
  call?: SendOptions,
): Promise<SendResult<GetUserChannelsResult>> => subscriptionOps.getUserChannels(c, p, call);
