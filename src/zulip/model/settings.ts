/**
 * Wire types for the caller's personal settings: the `user_settings` object of `POST /register`
 * (https://zulip.com/api/register-queue) and the parameters of `PATCH /settings`
 * (https://zulip.com/api/update-settings), snake_case as sent.
 *
 * Every key is optional: servers older than the feature level that introduced a setting leave it out.
 */

/** 1 automatic, 2 dark, 3 light. */
export type ColorScheme = 1 | 2 | 3;
/** 1 top topic in the channel, 2 channel feed. */
export type WebChannelDefaultView = 1 | 2;
export type WebHomeView = 'recent_topics' | 'inbox' | 'all_messages';
export type Emojiset = 'google' | 'google-blob' | 'twitter' | 'text';
/** 1 automatic, 2 always, 3 never. */
export type DemoteInactiveStreams = 1 | 2 | 3;
/** 1 compact, 2 with status, 3 with avatar and status. */
export type UserListStyle = 1 | 2 | 3;
export type WebAnimateImagePreviews = 'always' | 'on_hover' | 'never';
/** 1 all channels, 2 unmuted channels and topics, 3 no channels. */
export type WebStreamUnreadsCountDisplayPolicy = 1 | 2 | 3;

/** One entry of `emojiset_choices`. */
export interface EmojisetChoice {
  key: string;
  text: string;
}

export interface UserSettings {
  twenty_four_hour_time?: boolean;
  web_channel_default_view?: WebChannelDefaultView;
  starred_message_counts?: boolean;
  receives_typing_notifications?: boolean;
  web_suggest_update_timezone?: boolean;
  fluid_layout_width?: boolean;
  high_contrast_mode?: boolean;
  /** Pixels. */
  web_font_size_px?: number;
  /** Percent: 120 means a line height of 1.2. */
  web_line_height_percent?: number;
  color_scheme?: ColorScheme;
  enable_drafts_synchronization?: boolean;
  translate_emoticons?: boolean;
  display_emoji_reaction_users?: boolean;
  /** A language code the server has translations for. */
  default_language?: string;
  web_home_view?: WebHomeView;
  web_escape_navigates_to_home_view?: boolean;
  left_side_userlist?: boolean;
  emojiset?: Emojiset;
  demote_inactive_streams?: DemoteInactiveStreams;
  user_list_style?: UserListStyle;
  web_animate_image_previews?: WebAnimateImagePreviews;
  web_stream_unreads_count_display_policy?: WebStreamUnreadsCountDisplayPolicy;
  hide_ai_features?: boolean;
  /** IANA identifier; empty when unset. */
  timezone?: string;
  enable_stream_desktop_notifications?: boolean;
  enable_stream_email_notifications?: boolean;
  enable_stream_push_notifications?: boolean;
  enable_stream_audible_notifications?: boolean;
  notification_sound?: string;
  enable_desktop_notifications?: boolean;
  enable_sounds?: boolean;
  email_notifications_batching_period_seconds?: number;
  enable_offline_email_notifications?: boolean;
  enable_offline_push_notifications?: boolean;
  enable_online_push_notifications?: boolean;
  enable_followed_topic_desktop_notifications?: boolean;
  enable_followed_topic_email_notifications?: boolean;
  enable_followed_topic_push_notifications?: boolean;
  enable_followed_topic_audible_notifications?: boolean;
  enable_digest_emails?: boolean;
  // Settings after enable_digest_emails (listed at https://zulip.com/api/update-settings).
  enable_marketing_emails?: boolean;
  enable_login_emails?: boolean;
  message_content_in_email_notifications?: boolean;
  pm_content_in_desktop_notifications?: boolean;
  wildcard_mentions_notify?: boolean;
  enable_followed_topic_wildcard_mentions_notify?: boolean;
  /** 1 all unread, 2 DMs, mentions and followed topics, 3 DMs and mentions, 4 none. */
  desktop_icon_count_display?: number;
  /** 1 automatic, 2 always, 3 never. */
  realm_name_in_email_notifications_policy?: number;
  /** 1 participation, 2 sending, 3 starting the topic, 4 never. */
  automatically_follow_topics_policy?: number;
  automatically_unmute_topics_in_muted_streams_policy?: number;
  automatically_follow_topics_where_mentioned?: boolean;
  presence_enabled?: boolean;
  enter_sends?: boolean;
  send_private_typing_notifications?: boolean;
  send_stream_typing_notifications?: boolean;
  send_read_receipts?: boolean;
  /** 1 always, 2 only in conversation views, 3 never. */
  web_mark_read_on_scroll_policy?: number;
  /** 1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators. */
  email_address_visibility?: number;
  /** Register state only. */
  emojiset_choices?: EmojisetChoice[];
  /** Register state only. */
  available_notification_sounds?: string[];
}
