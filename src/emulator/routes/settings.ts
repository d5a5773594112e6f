/**
 * Personal settings: `PATCH /settings` (https://zulip.com/api/update-settings) and its deprecated
 * aliases `PATCH /settings/display` and `PATCH /settings/notifications`, the `user_settings` event
 * and its legacy forms, and the `user_settings` register state (plus the legacy top-level keys for
 * clients without the user_settings_object capability).
 *
 * As in Zulip (zerver/views/user_settings.py), every parameter is validated before anything is
 * applied. Parameters the endpoint does not know, and settings sent with their current value, are
 * reported in `ignored_parameters_unsupported` (https://zulip.com/api/update-settings). Name, email and password are account
 * fields rather than settings: a new email only starts a confirmation (nothing changes here), and a
 * new password needs the old one.
 */
import { createHash } from 'node:crypto';
import type { Route, RouteContext, StateContext } from '../context.js';
import { badRequest, missingArgument } from '../errors.js';
import type { Store, User } from '../store.js';
import { usersWhoCanAccess } from './presence.js';
import { zulipOperations as ops } from '../../zulip/generated/operations.js';
// The one check_full_name of PATCH /users/{id} and PATCH /settings (zerver/lib/users.py).
import { checkFullName } from './users/index.js';

export type Value = boolean | number | string;

type Check =
  | { kind: 'bool' }
  | { kind: 'int'; values?: readonly number[]; validate?: (v: number) => string | null }
  | { kind: 'str'; values?: readonly string[]; validate?: (v: string) => string | null };

export interface SettingDef {
  check: Check;
  default: Value;
  /** The pre-feature-level-89 event that also announces a change. */
  legacy?: 'display' | 'notification';
}

const bool = (d: boolean, legacy?: SettingDef['legacy']): SettingDef => ({ check: { kind: 'bool' }, default: d, legacy });
const int = (d: number, values?: readonly number[], legacy?: SettingDef['legacy']): SettingDef => ({
  check: { kind: 'int', values },
  default: d,
  legacy,
});
const oneOf = (d: string, values: readonly string[], legacy?: SettingDef['legacy']): SettingDef => ({
  check: { kind: 'str', values },
  default: d,
  legacy,
});

/** Language codes the emulator "has translations for", with their English names (for language_name). */
export const LANGUAGES: Readonly<Record<string, string>> = {
  en: 'English',
  en_GB: 'British English',
  ar: 'Arabic',
  bg: 'Bulgarian',
  ca: 'Catalan',
  cs: 'Czech',
  da: 'Danish',
  de: 'German',
  el: 'Greek',
  es: 'Spanish',
  fa: 'Persian',
  fi: 'Finnish',
  fr: 'French',
  hi: 'Hindi',
  hu: 'Hungarian',
  id: 'Indonesian',
  it: 'Italian',
  ja: 'Japanese',
  ko: 'Korean',
  nl: 'Dutch',
  pl: 'Polish',
  pt: 'Portuguese',
  pt_BR: 'Brazilian Portuguese',
  ro: 'Romanian',
  ru: 'Russian',
  sv: 'Swedish',
  tr: 'Turkish',
  uk: 'Ukrainian',
  vi: 'Vietnamese',
  'zh-hans': 'Simplified Chinese',
  'zh-hant': 'Traditional Chinese',
};

export const NOTIFICATION_SOUNDS = ['chime-bell', 'ding', 'zulip'] as const;

const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
  { key: 'google-blob', text: 'Google blobs' },
];

const TIME_ZONES = new Set(Intl.supportedValuesOf('timeZone'));

/** An IANA zone: one ICU lists, or an alias of one (Asia/Kolkata for Asia/Calcutta), or UTC. */
export function isTimeZone(name: string): boolean {
  if (TIME_ZONES.has(name) || name === 'UTC' || name === 'Etc/UTC') return true;
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    return TIME_ZONES.has(resolved) || resolved === 'UTC';
  } catch {
    return false;
  }
}

/** Every supported setting, in the order of the register `user_settings` object. */
export const SETTINGS: Record<string, SettingDef> = {
  twenty_four_hour_time: bool(false, 'display'),
  web_channel_default_view: int(1, [1, 2]),
  starred_message_counts: bool(true, 'display'),
  receives_typing_notifications: bool(true),
  web_suggest_update_timezone: bool(true),
  fluid_layout_width: bool(false, 'display'),
  high_contrast_mode: bool(false, 'display'),
  web_mark_read_on_scroll_policy: int(1, [1, 2, 3]),
  web_font_size_px: int(16),
  web_line_height_percent: int(140),
  color_scheme: int(1, [1, 2, 3], 'display'),
  enable_drafts_synchronization: bool(true, 'display'),
  translate_emoticons: bool(false, 'display'),
  display_emoji_reaction_users: bool(true),
  default_language: {
    check: { kind: 'str', validate: (v) => (v in LANGUAGES ? null : 'Invalid default_language') },
    default: 'en',
    legacy: 'display',
  },
  web_home_view: oneOf('inbox', ['recent_topics', 'inbox', 'all_messages'], 'display'),
  web_escape_navigates_to_home_view: bool(true),
  left_side_userlist: bool(false, 'display'),
  emojiset: oneOf('google', ['google', 'google-blob', 'twitter', 'text'], 'display'),
  demote_inactive_streams: int(1, [1, 2, 3], 'display'),
  user_list_style: int(2, [1, 2, 3]),
  web_animate_image_previews: oneOf('on_hover', ['always', 'on_hover', 'never']),
  web_stream_unreads_count_display_policy: int(2, [1, 2, 3]),
  hide_ai_features: bool(false),
  enter_sends: bool(false, 'display'),
  timezone: {
    check: { kind: 'str', validate: (v) => (isTimeZone(v) ? null : 'Not a recognized time zone') },
    default: 'UTC',
  },
  enable_stream_desktop_notifications: bool(false, 'notification'),
  enable_stream_email_notifications: bool(false, 'notification'),
  enable_stream_push_notifications: bool(false, 'notification'),
  enable_stream_audible_notifications: bool(false, 'notification'),
  notification_sound: {
    check: {
      kind: 'str',
      validate: (v) =>
        v === 'none' || (NOTIFICATION_SOUNDS as readonly string[]).includes(v) ? null : `Invalid notification sound '${v}'`,
    },
    default: 'zulip',
    legacy: 'notification',
  },
  enable_desktop_notifications: bool(true, 'notification'),
  enable_sounds: bool(true, 'notification'),
  email_notifications_batching_period_seconds: {
    check: {
      kind: 'int',
      // At most one week, as Zulip allows.
      validate: (v) => (v > 0 && v <= 7 * 86400 ? null : `Invalid email batching period: ${v} seconds`),
    },
    default: 120,
    legacy: 'notification',
  },
  enable_offline_email_notifications: bool(true, 'notification'),
  enable_offline_push_notifications: bool(true, 'notification'),
  enable_online_push_notifications: bool(true, 'notification'),
  enable_followed_topic_desktop_notifications: bool(true),
  enable_followed_topic_email_notifications: bool(true),
  enable_followed_topic_push_notifications: bool(true),
  enable_followed_topic_audible_notifications: bool(true),
  enable_followed_topic_wildcard_mentions_notify: bool(true),
  enable_digest_emails: bool(true, 'notification'),
  enable_marketing_emails: bool(true, 'notification'),
  enable_login_emails: bool(true, 'notification'),
  message_content_in_email_notifications: bool(true, 'notification'),
  pm_content_in_desktop_notifications: bool(true, 'notification'),
  wildcard_mentions_notify: bool(true, 'notification'),
  desktop_icon_count_display: int(1, [1, 2, 3, 4], 'notification'),
  realm_name_in_email_notifications_policy: int(1, [1, 2, 3], 'notification'),
  automatically_follow_topics_policy: int(3, [1, 2, 3, 4]),
  automatically_unmute_topics_in_muted_streams_policy: int(2, [1, 2, 3, 4]),
  automatically_follow_topics_where_mentioned: bool(true),
  presence_enabled: bool(true, 'notification'),
  send_private_typing_notifications: bool(true),
  send_stream_typing_notifications: bool(true),
  send_read_receipts: bool(true),
};

const MIN_PASSWORD_LENGTH = 6;

// ---- passwords -----------------------------------------------------------------------------------

/** The password every seeded account starts with (deterministic, like the API keys). */
export function initialPassword(email: string): string {
  return createHash('sha256').update(`chatgraph-emulator-password:${email}`).digest('base64url').slice(0, 16);
}

export function passwordOf(store: Store, user: User): string {
  return store.passwords.get(user.user_id) ?? initialPassword(user.delivery_email);
}

// ---- reading and validating ----------------------------------------------------------------------

/** The user's current value of a setting (timezone and presence_enabled live on the user record). */
export function currentSetting(user: User, name: string): Value {
  if (name === 'timezone') return user.timezone;
  if (name === 'presence_enabled') return user.presence_enabled !== false && user.settings.presence_enabled !== false;
  return user.settings[name] ?? SETTINGS[name]!.default;
}

export function readSetting(ctx: RouteContext, name: string, check: Check): Value {
  const { params } = ctx;
  if (check.kind === 'bool') return params.optBool(name)!;
  if (check.kind === 'int') return checkValue(name, params.optInt(name)!, check.values, check.validate);
  return checkValue(name, params.str(name), check.values, check.validate);
}

/** A number or text setting: one of its `values` if it lists them, and passing its own check. */
function checkValue<T extends number | string>(name: string, value: T, values?: readonly T[], validate?: (v: T) => string | null): T {
  if (values && !values.includes(value)) throw badRequest(`Invalid ${name}`);
  const problem = validate?.(value);
  if (problem) throw badRequest(problem);
  return value;
}

function checkNewEmail(ctx: RouteContext, email: string): void {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw badRequest('Invalid address.');
  const existing = ctx.store.userByEmail(email);
  if (existing && existing.user_id !== ctx.user.user_id) {
    throw badRequest(existing.is_active ? 'Already has an account.' : 'Account has been deactivated.');
  }
}

// ---- applying ------------------------------------------------------------------------------------

function writeSetting(user: User, name: string, value: Value): void {
  user.settings[name] = value;
  if (name === 'timezone') user.timezone = value as string;
  if (name === 'presence_enabled') user.presence_enabled = value as boolean;
}

/** Zulip's do_change_user_setting: the change, its events and side effects. */
function changeSetting(ctx: RouteContext, name: string, value: Value): void {
  const { user, store, events } = ctx;
  writeSetting(user, name, value);
  const languageName = name === 'default_language' ? { language_name: LANGUAGES[value as string]! } : {};
  events.notify([user.user_id], { type: 'user_settings', op: 'update', property: name, value, ...languageName });
  const legacy = SETTINGS[name]!.legacy;
  if (legacy === 'notification') {
    events.notify([user.user_id], { type: 'update_global_notifications', user: user.email, notification_name: name, setting: value });
  }
  if (legacy === 'display' || name === 'timezone') {
    events.notify([user.user_id], { type: 'update_display_settings', user: user.email, setting_name: name, setting: value, ...languageName });
  }
  if (name === 'timezone') {
    events.notify(usersWhoCanAccess(store, user), {
      type: 'realm_user',
      op: 'update',
      person: { email: user.email, user_id: user.user_id, timezone: value },
    });
  }
  // Drafts stop being synchronized: the server copies go, silently (clients keep theirs).
  if (name === 'enable_drafts_synchronization' && value === false) store.drafts.delete(user.user_id);
}

function updateSettings(ctx: RouteContext): Record<string, unknown> {
  const { params, user, store } = ctx;
  // Every parameter name, in request order, before anything is read.
  const sent = params.unread();
  if (user.is_bot) throw badRequest('This endpoint does not accept bot requests.');

  // 1. Read and validate everything.
  const changes = new Map<string, Value>();
  const unchanged = new Set<string>();
  for (const name of sent) {
    const def = SETTINGS[name];
    if (!def) continue;
    const value = readSetting(ctx, name, def.check);
    if (value === currentSetting(user, name)) unchanged.add(name);
    else changes.set(name, value);
  }
  const fullNameRaw = params.optStr('full_name');
  const email = params.optStr('email')?.trim();
  const oldPassword = params.optStr('old_password');
  const newPassword = params.optStr('new_password');
  let fullName: string | undefined;
  if (fullNameRaw !== undefined) {
    fullName = checkFullName(fullNameRaw);
    if (fullName === user.full_name) (unchanged.add('full_name'), (fullName = undefined));
  }
  if (email !== undefined) {
    if (email.toLowerCase() === user.delivery_email.toLowerCase()) unchanged.add('email');
    else checkNewEmail(ctx, email);
  }
  if (newPassword !== undefined) {
    if (oldPassword === undefined) throw missingArgument('old_password');
    if (oldPassword !== passwordOf(ctx.store, user)) throw badRequest('Wrong password!');
    if (newPassword.length < MIN_PASSWORD_LENGTH) throw badRequest('New password is too weak!');
  }

  // 2. Apply. (An email change only starts the confirmation, which the emulator does not model.)
  if (newPassword !== undefined) ctx.store.passwords.set(user.user_id, newPassword);
  if (fullName !== undefined) {
    user.full_name = fullName;
    ctx.events.notify(usersWhoCanAccess(store, user), {
      type: 'realm_user',
      op: 'update',
      person: { user_id: user.user_id, full_name: fullName },
    });
  }
  for (const [name, value] of changes) changeSetting(ctx, name, value);

  // 3. Report what was not applied: unknown parameters (marked as read so that the app does not
  // report them a second time) and unchanged ones, in request order.
  const unsupported = new Set(params.unread());
  for (const name of unsupported) params.has(name);
  const ignored = sent.filter((name) => unsupported.has(name) || unchanged.has(name));
  return ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {};
}

function settingsObject(user: User): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const name of Object.keys(SETTINGS)) object[name] = currentSetting(user, name);
  object.emojiset_choices = EMOJISET_CHOICES;
  object.available_notification_sounds = [...NOTIFICATION_SOUNDS];
  return object;
}

/**
 * The `user_settings` fetch type, and for clients without user_settings_object the legacy
 * top-level keys of `update_display_settings` and `update_global_notifications`.
 */
export function initialState(ctx: StateContext): Record<string, unknown> {
  const { user } = ctx;
  const state: Record<string, unknown> = {};
  if (ctx.wants('user_settings')) state.user_settings = settingsObject(user);
  if (ctx.options.capabilities.user_settings_object) return state;
  if (ctx.wants('update_display_settings')) {
    for (const [name, def] of Object.entries(SETTINGS)) if (def.legacy === 'display') state[name] = currentSetting(user, name);
    state.emojiset_choices = EMOJISET_CHOICES;
    state.timezone = user.timezone;
  }
  if (ctx.wants('update_global_notifications')) {
    for (const [name, def] of Object.entries(SETTINGS)) if (def.legacy === 'notification') state[name] = currentSetting(user, name);
    state.available_notification_sounds = [...NOTIFICATION_SOUNDS];
  }
  return state;
}

export const routes: Route[] = [
  { operation: ops.updateSettings, handler: updateSettings },
  // Deprecated aliases (before feature level 80 they took display / notification settings only).
  { operation: ops.updateDisplaySettings, handler: updateSettings },
  { operation: ops.updateNotificationSettings, handler: updateSettings },
];
