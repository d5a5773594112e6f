/**
 * Builders for store records with Zulip's defaults. Used by the seeders and by routes that create
 * things (sending a message, creating a channel or a group), so defaults live in one place.
 */
import { createHash } from 'node:crypto';
import { renderDescription, renderMarkdown } from './markdown.js';
import {
  Role,
  Store,
  SYSTEM_GROUPS,
  type Channel,
  type GroupSettingValue,
  type Attachment,
  type Message,
  type Realm,
  type Subscription,
  type User,
  type UserGroup,
  type UserSettings,
} from './store.js';

export const DEFAULT_USER_SETTINGS: UserSettings = {
  twenty_four_hour_time: false,
  web_channel_default_view: 1,
  starred_message_counts: true,
  receives_typing_notifications: true,
  web_suggest_update_timezone: true,
  fluid_layout_width: false,
  high_contrast_mode: false,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  color_scheme: 1,
  enable_drafts_synchronization: true,
  translate_emoticons: false,
  display_emoji_reaction_users: true,
  default_language: 'en',
  web_home_view: 'inbox',
  web_escape_navigates_to_home_view: true,
  left_side_userlist: false,
  emojiset: 'google',
  demote_inactive_streams: 1,
  user_list_style: 2,
  web_animate_image_previews: 'on_hover',
  web_stream_unreads_count_display_policy: 2,
  hide_ai_features: false,
  timezone: 'UTC',
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enable_stream_audible_notifications: false,
  notification_sound: 'zulip',
  enable_desktop_notifications: true,
  enable_sounds: true,
  email_notifications_batching_period_seconds: 120,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_digest_emails: true,
  presence_enabled: true,
};

/** A deterministic 32-character API key, so demo credentials are stable across runs. */
export function apiKeyFor(email: string): string {
  return createHash('sha256').update(`chatgraph-emulator:${email}`).digest('base64url').slice(0, 32);
}

export function createStore(nowMs: number, realm: Partial<Realm> = {}): Store {
  const store = new Store({
    id: 2,
    name: 'Zulip Dev',
    host: 'zulip.example.com',
    string_id: 'zulip',
    description: 'The coolest place in the universe.',
    empty_topic_display_name: 'general chat',
    date_created: Math.floor(nowMs / 1000) - 400 * 86400,
    settings: {
      allow_message_editing: true,
      message_content_edit_limit_seconds: 600,
      move_messages_within_stream_limit_seconds: 604800,
      move_messages_between_streams_limit_seconds: 604800,
      can_resolve_topics_group: 0,
      can_move_messages_between_channels_group: 0,
      can_move_messages_between_topics_group: 0,
      can_mention_many_users_group: 0,
      can_create_web_public_channel_group: 0,
      can_access_all_users_group: 0,
      enable_spectator_access: true,
      web_public_streams_enabled: true,
      message_retention_days: null,
      allow_edit_history: true,
      wildcard_mention_large_stream_threshold: 15,
      moderation_request_channel_id: null,
    },
    ...realm,
  });
  addSystemGroups(store, nowMs);
  const g = (name: (typeof SYSTEM_GROUPS)[number]) => store.systemGroupId(name);
  Object.assign(store.realm.settings, {
    can_resolve_topics_group: g('role:everyone'),
    can_move_messages_between_channels_group: g('role:members'),
    can_move_messages_between_topics_group: g('role:everyone'),
    can_mention_many_users_group: g('role:administrators'),
    can_create_web_public_channel_group: g('role:moderators'),
    can_access_all_users_group: g('role:everyone'),
    message_content_delete_limit_seconds: 600,
    can_delete_any_message_group: g('role:administrators'),
    can_delete_own_message_group: g('role:everyone'),
  });
  return store;
}

function addSystemGroups(store: Store, nowMs: number): void {
  const nobody = { direct_members: [], direct_subgroups: [] };
  SYSTEM_GROUPS.forEach((name, i) => {
    const id = store.nextId('group');
    const next = SYSTEM_GROUPS[i + 1];
    // Each system group contains the next smaller one (internet ⊃ everyone ⊃ members ⊃ ... ⊃ owners).
    const subgroups = next && name !== 'role:owners' && name !== 'role:nobody' ? [id + 1] : [];
    store.groups.set(id, {
      id,
      name,
      description: `System group: ${name.slice(5)}`,
      members: [],
      direct_subgroup_ids: subgroups,
      is_system_group: true,
      date_created: null,
      creator_id: null,
      deactivated: false,
      can_add_members_group: nobody,
      can_join_group: nobody,
      can_leave_group: nobody,
      can_manage_group: nobody,
      can_mention_group: nobody,
      can_remove_members_group: nobody,
    });
    void nowMs;
  });
}

export function addUser(
  store: Store,
  u: Partial<User> & { full_name: string; delivery_email: string },
  nowMs: number,
): User {
  const user_id = u.user_id ?? store.nextId('user');
  store.reserveId('user', user_id);
  const visibility = u.email_address_visibility ?? 1;
  const user: User = {
    user_id,
    email: visibility === 1 ? u.delivery_email : store.placeholderEmail(user_id),
    date_joined: new Date(nowMs - 300 * 86400_000).toISOString(),
    is_active: true,
    role: Role.MEMBER,
    is_bot: false,
    bot_type: null,
    bot_owner_id: null,
    timezone: 'UTC',
    avatar_source: 'G',
    avatar_version: 1,
    api_key: apiKeyFor(u.delivery_email),
    profile_data: {},
    email_address_visibility: visibility,
    can_change_user_emails: false,
    is_billing_admin: false,
    presence_enabled: true,
    ...u,
    settings: { ...DEFAULT_USER_SETTINGS, ...u.settings },
  };
  store.users.set(user_id, user);
  return user;
}

export function addChannel(
  store: Store,
  c: Partial<Channel> & { name: string },
  nowMs: number,
): Channel {
  const stream_id = c.stream_id ?? store.nextId('channel');
  store.reserveId('channel', stream_id);
  const admins = store.systemGroupId('role:administrators');
  const nobody = store.systemGroupId('role:nobody');
  const everyone = store.systemGroupId('role:everyone');
  const description = c.description ?? '';
  const channel: Channel = {
    stream_id,
    description,
    rendered_description: renderDescription(description),
    date_created: Math.floor(nowMs / 1000) - 200 * 86400,
    creator_id: null,
    invite_only: false,
    is_web_public: false,
    history_public_to_subscribers: true,
    message_retention_days: null,
    is_archived: false,
    is_moderation_request_channel: false,
    can_add_subscribers_group: admins,
    can_remove_subscribers_group: admins,
    can_administer_channel_group: nobody,
    can_send_message_group: everyone,
    can_subscribe_group: nobody,
    recipient_id: store.nextId('recipient'),
    ...c,
  };
  store.channels.set(stream_id, channel);
  store.subscriptions.set(stream_id, store.subscriptions.get(stream_id) ?? new Map());
  return channel;
}

const COLORS = ['#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5'];

export function subscribe(store: Store, streamId: number, userId: number, s: Partial<Subscription> = {}): Subscription {
  const existing = store.subscription(streamId, userId);
  if (existing) return existing;
  const sub: Subscription = {
    color: COLORS[(streamId + userId) % COLORS.length]!,
    is_muted: false,
    pin_to_top: false,
    desktop_notifications: null,
    email_notifications: null,
    push_notifications: null,
    audible_notifications: null,
    wildcard_mentions_notify: null,
    subscribed_after_message_id: lastMessageId(store),
    ...s,
  };
  store.subscriptions.get(streamId)!.set(userId, sub);
  return sub;
}

export function lastMessageId(store: Store): number {
  let last = 0;
  for (const id of store.messages.keys()) last = id; // insertion order is id order
  return last;
}

export function addGroup(
  store: Store,
  g: Partial<UserGroup> & { name: string },
  nowMs: number,
): UserGroup {
  const id = g.id ?? store.nextId('group');
  store.reserveId('group', id);
  const everyone: GroupSettingValue = store.systemGroupId('role:everyone');
  const group: UserGroup = {
    id,
    description: '',
    members: [],
    direct_subgroup_ids: [],
    is_system_group: false,
    date_created: Math.floor(nowMs / 1000),
    creator_id: null,
    deactivated: false,
    can_add_members_group: { direct_members: g.creator_id ? [g.creator_id] : [], direct_subgroups: [] },
    can_join_group: { direct_members: [], direct_subgroups: [] },
    can_leave_group: everyone,
    can_manage_group: { direct_members: g.creator_id ? [g.creator_id] : [], direct_subgroups: [] },
    can_mention_group: everyone,
    can_remove_members_group: { direct_members: [], direct_subgroups: [] },
    ...g,
  };
  store.groups.set(id, group);
  return group;
}

export interface NewMessage {
  sender_id: number;
  /** Channel message: stream_id and topic. */
  stream_id?: number;
  topic?: string;
  /** Direct message: the recipients (the sender is added). */
  to_user_ids?: number[];
  content: string;
  timestamp: number;
  client?: string;
}

/**
 * Stores a message and sets every receiver's flags (unread for all but the sender, mentions).
 * Validation and events are the caller's job; this is the part the seeders share with `POST /messages`.
 */
export function insertMessage(store: Store, m: NewMessage): Message {
  const id = store.nextId('message');
  const rendered = renderMarkdown(store, m.content);
  const message: Message =
    m.stream_id !== undefined
      ? {
          ...baseMessage(id, m, rendered.html, rendered.isMeMessage),
          type: 'stream',
          stream_id: m.stream_id,
          topic: m.topic ?? '',
          recipient_id: store.channels.get(m.stream_id)!.recipient_id,
        }
      : dmMessage(store, id, m, rendered.html, rendered.isMeMessage);
  store.messages.set(id, message);
  store.indexMessage(message);
  setReceiverFlags(store, message, rendered);
  return message;
}

function baseMessage(id: number, m: NewMessage, html: string, isMe: boolean) {
  return {
    id,
    sender_id: m.sender_id,
    content: m.content,
    rendered_content: html,
    timestamp: m.timestamp,
    client: m.client ?? 'website',
    is_me_message: isMe,
    reactions: [],
    edit_history: [],
  };
}

function dmMessage(store: Store, id: number, m: NewMessage, html: string, isMe: boolean): Message {
  const participants = [...new Set([m.sender_id, ...(m.to_user_ids ?? [])])].sort((a, b) => a - b);
  const others = participants.filter((p) => p !== m.sender_id);
  // As in Zulip, a 1:1 message's recipient is the receiving user's personal recipient (so each
  // direction has its own value); a group conversation has one recipient for all participants.
  const recipientKey = others.length === 0 ? participants : others.length === 1 ? others : participants;
  return {
    ...baseMessage(id, m, html, isMe),
    type: 'private',
    topic: '',
    dm_user_ids: participants,
    recipient_id: store.dmRecipientId(recipientKey),
  };
}

/** Marks the message unread for its receivers and sets mention flags from the rendered content. */
export function setReceiverFlags(store: Store, message: Message, rendered: ReturnType<typeof renderMarkdown>): void {
  const groupMembers = new Set<number>();
  for (const g of rendered.mentionedGroupIds) for (const u of store.groupMembersRecursive(g)) groupMembers.add(u);
  for (const userId of store.messageAudience(message)) {
    if (userId !== message.sender_id) store.setFlag(userId, message.id, 'read', false);
    else store.setFlag(userId, message.id, 'read', true);
    applyMentionFlags(store, userId, message.id, rendered, groupMembers);
  }
}

export function applyMentionFlags(
  store: Store,
  userId: number,
  messageId: number,
  rendered: ReturnType<typeof renderMarkdown>,
  groupMembers: Set<number>,
): void {
  store.setFlag(userId, messageId, 'mentioned', rendered.mentionedUserIds.has(userId));
  store.setFlag(userId, messageId, 'group_mentioned', groupMembers.has(userId));
  store.setFlag(userId, messageId, 'stream_wildcard_mentioned', rendered.wildcard === 'channel');
  store.setFlag(userId, messageId, 'topic_wildcard_mentioned', rendered.wildcard === 'topic');
  store.setFlag(userId, messageId, 'wildcard_mentioned', rendered.wildcard !== null);
}

/** Records an uploaded file owned by `owner_id` (messages link it through `/user_uploads/<path_id>`). */
export function addAttachment(
  store: Store,
  a: Partial<Omit<Attachment, 'message_ids'>> & { name: string; owner_id: number },
  nowMs: number,
): Attachment {
  const id = a.id ?? store.nextId('attachment');
  store.reserveId('attachment', id);
  const attachment: Attachment = {
    id,
    path_id: `${store.realm.id}/${id.toString(16).padStart(2, '0')}/${a.name}`,
    size: 1024,
    create_time: nowMs,
    ...a,
    message_ids: new Set(),
  };
  store.attachments.set(id, attachment);
  return attachment;
}
