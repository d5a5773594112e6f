/**
 * The emulator's whole state, in memory, with the permission helpers that several resources share.
 * Field names follow the wire format (snake_case) so routes can serialize records with little mapping.
 * Routes own their behaviour; this module owns only the data and the rules more than one route needs.
 */

import type { NavigationView } from '../zulip/model/navigation-views.js';
import type { UserStatus } from '../zulip/model/user-status.js';
import { Memo } from './memo.js';
import type { Linkifier } from '../zulip/model/linkifiers.js';
import type { RealmDomain } from '../zulip/model/realm-domains.js';
import type { CodePlayground } from '../zulip/model/playgrounds.js';
import {
  FLAG_NAMES,
  type SYSTEM_GROUPS,
  Role,
  type Attachment,
  type Channel,
  type CustomProfileField,
  type Draft,
  type GroupSettingValue,
  type Message,
  type PresenceRecord,
  type Realm,
  type ScheduledMessage,
  type Subscription,
  type User,
  type UserGroup,
  type UserTopic,
} from './records.js';
import type { SavedSnippet } from '../zulip/model/saved-snippets.js';
import type { ChannelFolder } from '../zulip/model/channels.js';
import type { Reminder } from '../zulip/model/reminders.js';
import type { Invite } from '../zulip/model/invites.js';
import type { RealmExportTypeName } from '../zulip/model/exports.js';

export * from './records.js';

/** A custom emoji: its image file names under the realm's emoji directory. */
export interface CustomEmoji {
  id: number;
  name: string;
  file_name: string;
  /** A still frame, for an animated image. */
  still_file_name: string | null;
  deactivated: boolean;
  author_id: number | null;
}

/** An invitation with what `GET /invites` does not show (routes/invites.ts). */
export interface StoredInvite extends Invite {
  stream_ids: number[];
  group_ids: number[];
  include_realm_default_subscriptions: boolean;
  welcome_message_custom_text: string | null;
  /** A revoked link stays, refused as "already revoked"; a revoked email invitation is deleted. */
  revoked: boolean;
}

/** A data export as routes/exports.ts records it. */
export interface StoredRealmExport {
  id: number;
  acting_user_id: number;
  export_time: number;
  type: RealmExportTypeName;
}

export class Store {
  realm: Realm;
  users = new Map<number, User>();
  channels = new Map<number, Channel>();
  /** stream_id → user_id → subscription. */
  subscriptions = new Map<number, Map<number, Subscription>>();
  /**
   * stream_id → user_id → an ended subscription. Zulip deactivates the row instead of deleting it:
   * the channel then appears in the `unsubscribed` register list, and subscribing again restores the
   * personal settings. `subscriptions` holds only active ones.
   */
  formerSubscriptions = new Map<number, Map<number, Subscription>>();
  defaultChannelIds = new Set<number>();
  /** Every message by id; insertion order is id order. */
  messages = new Map<number, Message>();
  /**
   * Per-user message flags, stored sparsely: `unread` holds the ids that are *not* read (read is the
   * common case), every other flag holds the ids where it is set.
   */
  flags = new Map<number, Map<string, Set<number>>>();
  groups = new Map<number, UserGroup>();
  drafts = new Map<number, Map<number, Draft>>();
  scheduledMessages = new Map<number, ScheduledMessage>();
  presence = new Map<number, PresenceRecord>();
  presenceLastUpdateId = 0;
  /** user_id → `${stream_id}\u0000${lowercased topic}` → entry. */
  userTopics = new Map<number, Map<string, UserTopic>>();
  /** Uploaded files by id. */
  attachments = new Map<number, Attachment>();
  /** user_id → password set through `PATCH /settings`; an account without one has its initial password. */
  passwords = new Map<number, string>();
  /** The organization's custom profile fields; routes/users seeds the demo set on first use. */
  customProfileFields: CustomProfileField[] | undefined;
  /** `${stream_id}:${creator_id}:${sender}` → the token of a channel email address (routes/channels). */
  channelEmailTokens = new Map<string, string>();
  /** The organization's custom emoji by id (routes/emoji). */
  customEmoji = new Map<number, CustomEmoji>();
  /** user_id → fragment → the user's navigation views, in creation order (routes/navigation-views.ts). */
  navigationViews = new Map<number, Map<string, NavigationView>>();
  // Organization administration.
  /** The organization's linkifiers, in processing order. */
  linkifiers: Linkifier[] = [];
  /** The allowed email domains, with the IDs `POST /realm/domains` answers. */
  realmDomains: (RealmDomain & { id: number })[] = [];
  /** The organization's code playgrounds. */
  playgrounds: CodePlayground[] = [];
  /** user_id → saved_snippet id → the user's saved snippet (https://zulip.com/api/get-saved-snippets). */
  savedSnippets = new Map<number, Map<number, SavedSnippet>>();
  // Channels and subscriptions.
  /** The organization's channel folders by id (routes/channels/folders.ts); `order` is kept at every level. */
  channelFolders = new Map<number, ChannelFolder & { order: number }>();
  /** Memoised derivations (search text, keyword patterns, avatar hashes); never the source of truth. */
  readonly memo = new Memo();
  /** user_id → alert words, oldest first (routes/alert-words.ts). */
  alertWords = new Map<number, string[]>();
  /** user_id → muted user_id → when it was muted (UNIX seconds), in muting order (routes/muted-users.ts). */
  mutedUsers = new Map<number, Map<number, number>>();
  /** user_id → status as `GET /users/{user_id}/status` returns it (routes/user-status.ts); absent: none set. */
  userStatus = new Map<number, UserStatus>();
  // Uploads.
  /** path_id → an uploaded file's bytes (routes/uploads.ts); bounded by settings.maxUploadStoreBytes. */
  uploadedFiles = new Map<string, { bytes: Uint8Array; content_type: string }>();
  /** token → the file a temporary URL serves, until when (UNIX ms). */
  uploadTokens = new Map<string, { path_id: string; expires_ms: number }>();
  /** reminder_id → a user's pending message reminder, with its owner (routes/reminders.ts). */
  reminders = new Map<number, Reminder & { sender_id: number }>();
  /** user_id → `${kind}:${token}` → a registered push token (routes/mobile.ts; deprecated endpoints). */
  pushTokens = new Map<number, Map<string, { kind: 'apns' | 'fcm'; token: string; appid?: string }>>();
  // Invitations and data exports.
  /** Email invitations (`is_multiuse` false) and reusable links (true) by id: two tables, as in Zulip (routes/invites.ts). */
  invites = { email: new Map<number, StoredInvite>(), link: new Map<number, StoredInvite>() };
  /** The organization's data exports by id (routes/exports.ts). */
  realmExports = new Map<number, StoredRealmExport>();
  // Client devices and E2EE push.
  /** device_id → a logged-in device (routes/mobile.ts), with its E2EE push registration once made. */
  clientDevices = new Map<number, ClientDevice>();
  /** The organization's defaults of new users' settings that administrators changed, by setting name (routes/realm.ts). */
  realmUserSettingsDefaults = new Map<string, boolean | number | string>();
  /**
   * stream_id → ids of the channel's messages, ascending; user_id → ids of the direct messages the
   * user takes part in. Lets `GET /messages` scan from an anchor instead of over every message.
   * Kept by {@link Store.indexMessage} (insertMessage calls it) and {@link Store.reindexMessages};
   * rebuilt from scratch by {@link Store.ensureMessageIndex} if messages changed behind its back.
   */
  private channelIndex = new Map<number, number[]>();
  private dmIndex = new Map<number, number[]>();
  private indexedCount = 0;
  /** DM recipient ids, keyed by the sorted participant list. */
  private dmRecipients = new Map<string, number>();
  /** Lowercased API and real emails → user id; see {@link userByEmail}. */
  private emailIndex = new Map<string, number>();
  private ids = new Map<string, number>();

  constructor(realm: Realm) {
    this.realm = realm;
  }

  /** Next id of a kind ('user', 'channel', 'message', 'group', 'draft', 'scheduled', 'recipient'...). */
  nextId(kind: string): number {
    const id = (this.ids.get(kind) ?? 0) + 1;
    this.ids.set(kind, id);
    return id;
  }

  /** Makes sure future ids of `kind` are above `id` (used by seeders that pick ids). */
  reserveId(kind: string, id: number): void {
    if ((this.ids.get(kind) ?? 0) < id) this.ids.set(kind, id);
  }

  // ---- users -------------------------------------------------------------------------------------

  userById(id: number): User | undefined {
    return this.users.get(id);
  }

  /** Looks a user up by API email or real email, case-insensitively. */
  userByEmail(email: string): User | undefined {
    const wanted = email.toLowerCase();
    const hit = this.users.get(this.emailIndex.get(wanted) ?? -1);
    if (hit && (hit.email.toLowerCase() === wanted || hit.delivery_email.toLowerCase() === wanted)) return hit;
    // A miss or a stale entry (emails change): rebuild. Every authenticated request looks its user
    // up, and a scan is linear in the organization's size.
    this.emailIndex.clear();
    for (const u of this.users.values()) {
      this.emailIndex.set(u.delivery_email.toLowerCase(), u.user_id);
      this.emailIndex.set(u.email.toLowerCase(), u.user_id);
    }
    const id = this.emailIndex.get(wanted);
    return id === undefined ? undefined : this.users.get(id);
  }

  placeholderEmail(userId: number): string {
    return `user${userId}@${this.realm.host}`;
  }

  isAdmin(user: User): boolean {
    return user.role <= Role.ADMINISTRATOR;
  }

  isModeratorOrAbove(user: User): boolean {
    return user.role <= Role.MODERATOR;
  }

  isGuest(user: User): boolean {
    return user.role === Role.GUEST;
  }

  /** Whether `viewer` may see `target`'s real email address (email_address_visibility). */
  canSeeRealEmail(viewer: User, target: User): boolean {
    if (viewer.user_id === target.user_id || target.is_bot) return true;
    switch (target.email_address_visibility) {
      case 1:
        return true;
      case 2:
        return !this.isGuest(viewer);
      case 3:
        return this.isAdmin(viewer);
      case 5:
        return this.isModeratorOrAbove(viewer);
      default:
        return false;
    }
  }

  // ---- groups ------------------------------------------------------------------------------------

  groupByName(name: string): UserGroup | undefined {
    for (const g of this.groups.values()) if (g.name === name) return g;
    return undefined;
  }

  systemGroupId(name: (typeof SYSTEM_GROUPS)[number]): number {
    const g = this.groupByName(name);
    if (!g) throw new Error(`system group ${name} missing`);
    return g.id;
  }

  /** Direct members; system groups derive them from roles so role changes need no bookkeeping. */
  groupDirectMembers(group: UserGroup): number[] {
    if (!group.is_system_group) return group.members;
    const byRole: Record<string, number | undefined> = {
      'role:owners': Role.OWNER,
      'role:administrators': Role.ADMINISTRATOR,
      'role:moderators': Role.MODERATOR,
      'role:fullmembers': Role.MEMBER,
      'role:everyone': Role.GUEST,
    };
    const role = byRole[group.name];
    if (role === undefined) return [];
    return [...this.users.values()].filter((u) => u.is_active && u.role === role).map((u) => u.user_id);
  }

  /** Every user in the group, through subgroups (cycle-safe). */
  groupMembersRecursive(groupId: number, seen = new Set<number>()): Set<number> {
    const result = new Set<number>();
    if (seen.has(groupId)) return result;
    seen.add(groupId);
    const group = this.groups.get(groupId);
    if (!group || group.deactivated) return result;
    for (const m of this.groupDirectMembers(group)) result.add(m);
    for (const sub of group.direct_subgroup_ids) {
      for (const m of this.groupMembersRecursive(sub, seen)) result.add(m);
    }
    return result;
  }

  /** Whether the user holds a permission given as a group-setting value. */
  userHasGroupSetting(userId: number, value: GroupSettingValue): boolean {
    if (typeof value === 'number') return this.groupMembersRecursive(value).has(userId);
    if (value.direct_members.includes(userId)) return true;
    return value.direct_subgroups.some((g) => this.groupMembersRecursive(g).has(userId));
  }

  // ---- channels ----------------------------------------------------------------------------------

  channelByName(name: string): Channel | undefined {
    const wanted = name.toLowerCase();
    for (const c of this.channels.values()) if (c.name.toLowerCase() === wanted) return c;
    return undefined;
  }

  subscription(streamId: number, userId: number): Subscription | undefined {
    return this.subscriptions.get(streamId)?.get(userId);
  }

  isSubscribed(userId: number, streamId: number): boolean {
    return this.subscription(streamId, userId) !== undefined;
  }

  subscriberIds(streamId: number): number[] {
    return [...(this.subscriptions.get(streamId)?.keys() ?? [])];
  }

  /** Channels the user is subscribed to. */
  subscribedChannelIds(userId: number): number[] {
    const ids: number[] = [];
    for (const [streamId, subs] of this.subscriptions) if (subs.has(userId)) ids.push(streamId);
    return ids;
  }

  isPublic(channel: Channel): boolean {
    return !channel.invite_only;
  }

  /** Metadata access: name, description, settings. https://zulip.com/help/channel-permissions */
  canAccessChannelMetadata(user: User, channel: Channel): boolean {
    if (channel.is_web_public) return true;
    if (this.isSubscribed(user.user_id, channel.stream_id)) return true;
    if (this.isGuest(user)) return false;
    if (this.isPublic(channel) || this.isAdmin(user)) return true;
    return this.userHasGroupSetting(user.user_id, channel.can_administer_channel_group);
  }

  /** Content access: reading the channel's messages. */
  canAccessChannelContent(user: User, channel: Channel): boolean {
    if (this.isSubscribed(user.user_id, channel.stream_id)) return true;
    if (channel.is_web_public) return true;
    if (this.isGuest(user)) return false;
    return this.isPublic(channel);
  }

  canAdministerChannel(user: User, channel: Channel): boolean {
    if (this.isAdmin(user)) return true;
    return this.userHasGroupSetting(user.user_id, channel.can_administer_channel_group);
  }

  // ---- messages ----------------------------------------------------------------------------------

  /** The recipient id of a direct-message conversation (stable per participant set). */
  dmRecipientId(userIds: number[]): number {
    const key = [...new Set(userIds)].sort((a, b) => a - b).join(',');
    let id = this.dmRecipients.get(key);
    if (id === undefined) {
      id = this.nextId('recipient');
      this.dmRecipients.set(key, id);
    }
    return id;
  }

  /** Whether the user may read this message (direct: a participant; channel: content access and history rules). */
  canSeeMessage(user: User, message: Message): boolean {
    if (message.type === 'private') return message.dm_user_ids!.includes(user.user_id);
    const channel = this.channels.get(message.stream_id!);
    if (!channel || !this.canAccessChannelContent(user, channel)) return false;
    if (channel.history_public_to_subscribers) return true;
    const sub = this.subscription(channel.stream_id, user.user_id);
    return sub !== undefined && message.id > sub.subscribed_after_message_id;
  }

  /** Whether the message was delivered to the user (as opposed to visible through public history). */
  receivedMessage(userId: number, message: Message): boolean {
    if (message.type === 'private') return message.dm_user_ids!.includes(userId);
    const sub = this.subscription(message.stream_id!, userId);
    return sub !== undefined && message.id > sub.subscribed_after_message_id;
  }

  hasFlag(userId: number, messageId: number, flag: string): boolean {
    const set = this.flags.get(userId)?.get(flag === 'read' ? 'unread' : flag);
    const present = set?.has(messageId) ?? false;
    return flag === 'read' ? !present : present;
  }

  /** Sets or clears a flag; returns whether anything changed. */
  setFlag(userId: number, messageId: number, flag: string, on: boolean): boolean {
    if (this.hasFlag(userId, messageId, flag) === on) return false;
    let perUser = this.flags.get(userId);
    if (!perUser) this.flags.set(userId, (perUser = new Map()));
    const key = flag === 'read' ? 'unread' : flag;
    let set = perUser.get(key);
    if (!set) perUser.set(key, (set = new Set()));
    const store = flag === 'read' ? !on : on;
    if (store) set.add(messageId);
    else set.delete(messageId);
    return true;
  }

  /** The flags array as the API returns it for this user. */
  messageFlags(userId: number, message: Message): string[] {
    const flags: string[] = [];
    for (const flag of FLAG_NAMES) {
      if (flag === 'historical') continue;
      if (this.hasFlag(userId, message.id, flag)) flags.push(flag);
    }
    if (!this.receivedMessage(userId, message)) flags.push('historical');
    return flags;
  }

  /** Adds a new message to the channel/direct-message indexes. */
  indexMessage(message: Message): void {
    if (message.type === 'stream') insertSorted(this.indexList(this.channelIndex, message.stream_id!), message.id);
    else for (const u of message.dm_user_ids!) insertSorted(this.indexList(this.dmIndex, u), message.id);
    this.indexedCount++;
  }

  /** Moves already-indexed channel messages between channels (after their `stream_id` changed). */
  reindexMessages(messageIds: number[], fromStreamId: number, toStreamId: number): void {
    if (fromStreamId === toStreamId) return;
    const moved = new Set(messageIds);
    const from = this.channelIndex.get(fromStreamId);
    if (from) this.channelIndex.set(fromStreamId, from.filter((id) => !moved.has(id)));
    const to = this.indexList(this.channelIndex, toStreamId);
    for (const id of [...moved].sort((a, b) => a - b)) insertSorted(to, id);
  }

  /** Rebuilds the indexes when messages were added or removed without {@link Store.indexMessage}. */
  ensureMessageIndex(): void {
    if (this.indexedCount === this.messages.size) return;
    this.channelIndex = new Map();
    this.dmIndex = new Map();
    this.indexedCount = 0;
    for (const m of this.messages.values()) this.indexMessage(m);
  }

  /** Ids of a channel's messages, ascending (may hold ids of since-deleted messages: check them). */
  channelMessageIds(streamId: number): readonly number[] {
    this.ensureMessageIndex();
    return this.channelIndex.get(streamId) ?? [];
  }

  /** Ids of the direct messages a user takes part in, ascending. */
  dmMessageIds(userId: number): readonly number[] {
    this.ensureMessageIndex();
    return this.dmIndex.get(userId) ?? [];
  }

  private indexList(index: Map<number, number[]>, key: number): number[] {
    let list = index.get(key);
    if (!list) index.set(key, (list = []));
    return list;
  }

  /** Users who should be told about events on this message: participants or subscribers. */
  messageAudience(message: Message): number[] {
    if (message.type === 'private') return [...message.dm_user_ids!];
    return this.subscriberIds(message.stream_id!);
  }

  // ---- topics ------------------------------------------------------------------------------------

  userTopicKey(streamId: number, topic: string): string {
    return `${streamId}\u0000${topic.toLowerCase()}`;
  }
}

/** Inserts into an ascending array (appending in the common case of a new, highest id). */
function insertSorted(list: number[], id: number): void {
  if (list.length === 0 || list[list.length - 1]! < id) {
    list.push(id);
    return;
  }
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  if (list[lo] !== id) list.splice(lo, 0, id);
}

/**
 * A device from `POST /register_client_device`; the push fields are set by `POST /mobile_push/register`
 * (the push key and the encrypted registration are the device's secrets).
 */
export interface ClientDevice {
  device_id: number;
  user_id: number;
  push_key_id?: number;
  push_key?: string;
  token_kind?: 'fcm' | 'apns';
  token_id?: string;
}
