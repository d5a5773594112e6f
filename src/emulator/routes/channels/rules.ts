/** Channel validation shared by channel creation, updates and subscriptions (Zulip's check_stream_name and friends). */
import type { ChannelPermissionSetting } from '../../../zulip/model/channels.js';
import type { EmulatorSettings } from '../../context.js';
import { badRequest } from '../../errors.js';
import { parseGroupSettingValue } from '../../group-settings.js';
import { checkNoNullBytes, type Params } from '../../http.js';
import type { GroupSettingValue, Store, User } from '../../store.js';

// ---- validation shared with subscriptions -------------------------------------------------------

/** Zulip's check_stream_name on an already stripped name. */
export function checkChannelName(settings: EmulatorSettings, name: string): string {
  if (name.trim() === '') throw badRequest("Channel name can't be empty.");
  if ([...name].length > settings.maxStreamNameLength) {
    throw badRequest(`Channel name too long (limit: ${settings.maxStreamNameLength} characters).`);
  }
  const bad = [...name].findIndex((c) => /[\p{Cc}\p{Cs}\p{Cn}]/u.test(c));
  if (bad >= 0) throw badRequest(`Invalid character in channel name, at position ${bad + 1}.`);
  return name;
}

export function checkDescription(settings: EmulatorSettings, name: string, description: string): string {
  checkNoNullBytes(name, description);
  if ([...description].length > settings.maxStreamDescriptionLength) {
    throw badRequest(`${name} is too long (limit: ${settings.maxStreamDescriptionLength} characters)`);
  }
  // Zulip keeps channel descriptions on one line.
  return description.replace(/\n/g, ' ');
}

/**
 * `message_retention_days`, declared `Json[str] | Json[int]` by Zulip (zerver/views/streams.py): the
 * raw value must be JSON, so `"unlimited"` / `"realm_default"` (JSON strings) or a positive integer;
 * a bare `unlimited` is not valid JSON. Returns null (inherit the organization's), -1 (unlimited) or
 * the number of days; undefined when the parameter is absent.
 */
export function readRetentionDays(params: Params): number | null | undefined {
  const value = params.optJson('message_retention_days');
  if (value === undefined) return undefined;
  if (value === 'realm_default') return null;
  if (value === 'unlimited') return -1;
  // Zulip's parse_message_retention_days: any other string, or a non-positive number, is refused.
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw badRequest(`Bad value for 'message_retention_days': ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return value;
}

/** Which system groups a channel permission may not be set to (Zulip's GroupPermissionSetting). */
const DISALLOWED_SYSTEM_GROUPS: Record<ChannelPermissionSetting, readonly string[]> = {
  can_add_subscribers_group: ['role:internet', 'role:everyone'],
  can_remove_subscribers_group: ['role:internet'],
  can_administer_channel_group: ['role:internet', 'role:everyone'],
  can_send_message_group: ['role:internet'],
  can_subscribe_group: ['role:internet', 'role:everyone'],
};

/** A group-setting value for a channel permission, validated and normalized (group-settings.ts). */
export function parseChannelGroupSetting(store: Store, setting: ChannelPermissionSetting, raw: unknown): GroupSettingValue {
  return parseGroupSettingValue(store, setting, raw, { disallowed: DISALLOWED_SYSTEM_GROUPS[setting], eachSubgroup: false });
}

/** Web-public channels need the server setting, the organization setting and the creator's permission. */
export function checkCanMakeWebPublic(store: Store, user: User): void {
  const realm = store.realm.settings;
  if (!realm.web_public_streams_enabled || !realm.enable_spectator_access) {
    throw badRequest('Web-public channels are not enabled.');
  }
  if (!store.userHasGroupSetting(user.user_id, realm.can_create_web_public_channel_group)) {
    throw badRequest('Insufficient permission');
  }
}
