/**
 * Wire types for channel subscriptions (https://zulip.com/api/get-subscriptions,
 * https://zulip.com/api/subscribe, https://zulip.com/api/unsubscribe,
 * https://zulip.com/api/update-subscription-settings), snake_case as sent.
 */
import type { Channel } from './channels.js';

/**
 * A subscription: the channel's fields plus the user's personal settings for it. Notification
 * settings are null when they inherit the user-level default (always so over REST; in
 * `POST /register` only with the `notification_settings_null` client capability).
 */
export interface Subscription extends Omit<Channel, 'is_default'> {
  /** The user's color for the channel, `#rrggbb`. */
  color: string;
  /** Muted channels do not count toward unread totals and are left out of the combined feed. */
  is_muted: boolean;
  /** @deprecated the inverse of is_muted. */
  in_home_view?: boolean;
  pin_to_top: boolean;
  desktop_notifications: boolean | null;
  email_notifications: boolean | null;
  push_notifications: boolean | null;
  audible_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
  /** Only when include_subscribers is true. */
  subscribers?: number[];
}

/** `GET /users/me/subscriptions` success body. */
export interface GetSubscriptionsResult {
  subscriptions: Subscription[];
}

/** One entry of the `subscriptions` parameter of `POST /users/me/subscriptions`. */
export interface SubscriptionRequest {
  name: string;
  /** Used only when the channel is created. */
  description?: string;
  /** The subscriber's color for the channel, `#rrggbb`. */
  color?: string;
}

/**
 * `POST /users/me/subscriptions` success body. Keys are user IDs as text (feature level 289), or
 * API email addresses on older servers.
 */
export interface SubscribeResult {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  /** Only when authorization_errors_fatal was false. */
  unauthorized?: string[];
}

/** `DELETE /users/me/subscriptions` success body. */
export interface UnsubscribeResult {
  removed: string[];
  /** Channels the users were not subscribed to. */
  not_removed: string[];
}

/** `PATCH /users/me/subscriptions` success body: the subscribe and unsubscribe results together. */
export type UpdateSubscriptionsResult = Omit<SubscribeResult, 'unauthorized'> & UnsubscribeResult;

/** `GET /users/{user_id}/channels` success body (feature level 440). */
export interface GetUserChannelsResult {
  /** The channels the user is subscribed to, among those whose subscribers the caller may see. */
  subscribed_channel_ids: number[];
}

/** The personal settings `POST /users/me/subscriptions/properties` changes. */
export type SubscriptionProperty =
  | 'color'
  | 'is_muted'
  | 'in_home_view'
  | 'pin_to_top'
  | 'desktop_notifications'
  | 'audible_notifications'
  | 'push_notifications'
  | 'email_notifications'
  | 'wildcard_mentions_notify';

export interface SubscriptionPropertyChange {
  stream_id: number;
  property: SubscriptionProperty;
  /** A `#rrggbb` text for color, a boolean for everything else. */
  value: boolean | string;
}

/** `GET /streams/{stream_id}/members` success body. */
export interface GetSubscribersResult {
  subscribers: number[];
}

/** `GET /users/{user_id}/subscriptions/{stream_id}` success body. */
export interface GetSubscriptionStatusResult {
  is_subscribed: boolean;
}
