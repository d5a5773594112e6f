/**
 * One credential's unread messages: loaded from the `unread_msgs` and `user_topics` of the register
 * state (https://zulip.com/api/register-queue) and kept current by the same queue's events
 * (https://zulip.com/api/get-events): `message`, `update_message_flags` (`read`, and the mention
 * flags), `delete_message`, `update_message` (moves of messages and topics, mention changes of an
 * edit) and `user_topic`. Channel muting is read from the directory's subscriptions, which the
 * `subscription` events keep current.
 *
 * The counts follow Zulip's server (zerver/lib/message.py, `extract_unread_data_from_um_rows` and
 * `aggregate_unread_data`, which compute `unread_msgs`):
 * - a channel message is muted when its topic is muted, or its channel is muted and the topic is
 *   neither unmuted nor followed;
 * - `total` counts every unread direct message and the unread channel messages that are not muted;
 * - mentions count a direct (personal or group) mention always, a wildcard mention (@all,
 *   @topic) only where the message is not muted;
 * - unreads of channels the caller is not subscribed to are left out (the server leaves out
 *   inactive subscriptions).
 * The per-channel and per-topic lists include muted conversations, as `unread_msgs.streams` does.
 *
 * What the snapshot cannot tell: whether a counted mention in it is direct or a wildcard. It is
 * kept as counted, so muting its topic later does not drop it (zulip-flutter's model has the same
 * limit, `lib/model/unreads.dart`). Events carry the flags, so mentions they bring are exact.
 */
import type { UnreadMessagesSnapshot } from '../../zulip/model/messages.js';
import type { Subscription } from '../../zulip/model/subscriptions.js';
import { VisibilityPolicies, type UserTopic } from '../../zulip/model/user-topics.js';
import { eventTypeEntry } from '../events/types.js';

// The event types that change unread counts are the event table's (`unreads`, events/types.ts); the
// `subscription` events that mute channels are the directory's.
export { UNREADS_EVENT_TYPES } from '../events/types.js';

/** How a message mentions the caller; `counted` comes from the snapshot or a `message_details` (see above). */
type Mention = 'direct' | 'wildcard' | 'counted' | undefined;

interface UnreadMessage {
  channelId: number | undefined;
  topic: string | undefined;
  /** Direct message: every participant, the caller included, ascending. */
  participants: readonly number[] | undefined;
  mention: Mention;
}

/** An event as the queue hands it over (see data.ts `DirectoryEvent`). */
type UnreadEvent = { id: number; type: string; [key: string]: unknown };

/** The unread messages of one topic. */
export interface TopicUnreads {
  channelId: number;
  topic: string;
  /** Whether the topic is muted for the caller (its messages do not count toward the total). */
  muted: boolean;
  messageIds: number[];
}

/** The unread messages of one channel, by topic. */
export interface ChannelUnreads {
  channelId: number;
  /** Every unread message of the channel, muted topics included. */
  count: number;
  /** The unread messages that count toward the total (not muted). */
  unmutedCount: number;
  topics: TopicUnreads[];
}

/** The unread messages of one direct-message conversation. */
export interface ConversationUnreads {
  /** Every participant but the caller, ascending; the caller alone for their own conversation. */
  userIds: number[];
  messageIds: number[];
}

/** The caller's unread counts at one moment, as the schema serves them. */
export interface UnreadsView {
  total: number;
  mentionIds: number[];
  channels: ChannelUnreads[];
  conversations: ConversationUnreads[];
  oldUnreadsMissing: boolean;
}

/** What the counts read from the rest of the directory: the caller's subscriptions. */
export type SubscriptionOf = (channelId: number) => Subscription | undefined;

const MENTION_FLAGS: ReadonlySet<string> = new Set(['mentioned', 'group_mentioned']);
const WILDCARD_FLAGS: ReadonlySet<string> = new Set(['wildcard_mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned']);
/** Bytes per unread message kept (map entry and record), for the directory's memory estimate. */
const MESSAGE_BYTES = 160;

function mentionOf(flags: readonly unknown[]): Mention {
  if (flags.some((f) => MENTION_FLAGS.has(f as string))) return 'direct';
  if (flags.some((f) => WILDCARD_FLAGS.has(f as string))) return 'wildcard';
  return undefined;
}

const ascending = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);
const topicKey = (channelId: number, topic: string) => `${channelId}\u0000${topic.toLowerCase()}`;

/** The register state the counts start from, as received (frozen, and shared by content when interned). */
interface Base {
  unread_msgs: UnreadMessagesSnapshot;
  user_topics: readonly UserTopic[];
}

/** The state once events changed it: the caller's own. */
interface State {
  messages: Map<number, UnreadMessage>;
  /** Topic visibility policies by channel and case-folded topic (Zulip matches topics case-insensitively). */
  policies: Map<string, number>;
  oldUnreadsMissing: boolean;
}

/** Shares the unchanged register state between directories (the directory's intern table). */
export interface UnreadsInterner {
  intern<T extends object>(value: T): T;
  release(value: object): void;
}

/**
 * The counts of one credential. Until the first event, they are read from the register state as
 * received, interned like the directory's records (credentials sent byte-identical state share
 * it); the first event copies it into the credential's own maps (copy-on-write).
 */
export class Unreads {
  private base: Base | undefined;
  private own: State | undefined;

  constructor(
    snapshot: UnreadMessagesSnapshot,
    userTopics: readonly UserTopic[],
    private readonly selfId: number,
    private readonly interner?: UnreadsInterner,
  ) {
    const base: Base = { unread_msgs: snapshot, user_topics: userTopics };
    this.base = interner ? interner.intern(base) : base;
  }

  /** Estimated bytes of the credential's own state (the interned register state is counted by the intern table). */
  get bytes(): number {
    return this.own ? (this.own.messages.size + this.own.policies.size) * MESSAGE_BYTES : 0;
  }

  /** Releases the shared register state; nothing is served afterwards. */
  dispose(): void {
    if (this.base) this.interner?.release(this.base);
    this.base = undefined;
    this.own = undefined;
  }

  private state(): State {
    return this.own ?? this.build();
  }

  /** The credential's own copy, made on the first change. */
  private mutable(): State {
    if (this.own) return this.own;
    this.own = this.build();
    if (this.base) this.interner?.release(this.base);
    this.base = undefined;
    return this.own;
  }

  private build(): State {
    const state: State = { messages: new Map(), policies: new Map(), oldUnreadsMissing: false };
    const base = this.base;
    if (!base) return state;
    const snapshot = base.unread_msgs;
    state.oldUnreadsMissing = snapshot.old_unreads_missing === true;
    for (const entry of snapshot.streams) {
      for (const id of entry.unread_message_ids) state.messages.set(id, { channelId: entry.stream_id, topic: entry.topic, participants: undefined, mention: undefined });
    }
    for (const entry of snapshot.pms) this.addDirect(state, entry.unread_message_ids, [entry.other_user_id]);
    for (const entry of snapshot.huddles) this.addDirect(state, entry.unread_message_ids, entry.user_ids_string.split(',').map(Number));
    for (const id of snapshot.mentions) {
      const message = state.messages.get(id);
      if (message) message.mention = 'counted';
    }
    for (const entry of base.user_topics) setPolicy(state, entry);
    return state;
  }

  /**
   * Applies one event; returns false for types the unreads do not keep. Throws on a shape it cannot
   * read (the directory then reloads).
   */
  apply(event: UnreadEvent, subscription: SubscriptionOf): boolean {
    const effect = eventTypeEntry(event.type)?.unreads;
    if (effect === undefined) return false;
    const state = this.mutable();
    switch (effect) {
      case 'message':
        this.onMessage(state, event, subscription);
        return true;
      case 'flags':
        this.onFlags(state, event);
        return true;
      case 'delete':
        for (const id of event.message_ids !== undefined ? (event.message_ids as number[]) : [event.message_id as number]) state.messages.delete(id);
        return true;
      case 'update':
        this.onUpdate(state, event);
        return true;
      case 'topicPolicy':
        setPolicy(state, event as unknown as UserTopic);
        return true;
    }
  }

  /** Whether a channel message in this topic is muted for the caller (see the file comment). */
  isMuted(channelId: number, topic: string, subscription: SubscriptionOf, state = this.state()): boolean {
    const policy = state.policies.get(topicKey(channelId, topic));
    if (policy === VisibilityPolicies.MUTED) return true;
    if (policy === VisibilityPolicies.UNMUTED || policy === VisibilityPolicies.FOLLOWED) return false;
    return subscription(channelId)?.is_muted === true;
  }

  /** The counts now. Channels by ID, topics by name, conversations by participants. */
  view(subscription: SubscriptionOf): UnreadsView {
    const topics = new Map<string, TopicUnreads>();
    const conversations = new Map<string, ConversationUnreads>();
    const mentionIds: number[] = [];
    let total = 0;
    const state = this.state();
    for (const [id, message] of state.messages) {
      let muted = false;
      if (message.participants) {
        const others = message.participants.filter((u) => u !== this.selfId);
        const userIds = others.length > 0 ? others : [this.selfId];
        const key = userIds.join(',');
        let entry = conversations.get(key);
        if (!entry) conversations.set(key, (entry = { userIds, messageIds: [] }));
        entry.messageIds.push(id);
      } else {
        const channelId = message.channelId!;
        const topic = message.topic!;
        if (!subscription(channelId)) continue;
        muted = this.isMuted(channelId, topic, subscription, state);
        const key = `${channelId}\u0000${topic}`;
        let entry = topics.get(key);
        if (!entry) topics.set(key, (entry = { channelId, topic, muted, messageIds: [] }));
        entry.messageIds.push(id);
      }
      if (!muted) total++;
      if (message.mention === 'direct' || message.mention === 'counted' || (message.mention === 'wildcard' && !muted)) mentionIds.push(id);
    }
    const channels = new Map<number, ChannelUnreads>();
    for (const entry of topics.values()) {
      entry.messageIds.sort((a, b) => a - b);
      let channel = channels.get(entry.channelId);
      if (!channel) channels.set(entry.channelId, (channel = { channelId: entry.channelId, count: 0, unmutedCount: 0, topics: [] }));
      channel.topics.push(entry);
      channel.count += entry.messageIds.length;
      if (!entry.muted) channel.unmutedCount += entry.messageIds.length;
    }
    for (const channel of channels.values()) channel.topics.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
    for (const entry of conversations.values()) entry.messageIds.sort((a, b) => a - b);
    return {
      total,
      mentionIds: mentionIds.sort((a, b) => a - b),
      channels: [...channels.values()].sort((a, b) => a.channelId - b.channelId),
      conversations: [...conversations.values()].sort((a, b) => (a.userIds.join(',') < b.userIds.join(',') ? -1 : 1)),
      oldUnreadsMissing: state.oldUnreadsMissing,
    };
  }

  // ---- events --------------------------------------------------------------------------------------

  private addDirect(state: State, ids: readonly number[], users: readonly number[]): void {
    const participants = ascending([...users, this.selfId]);
    for (const id of ids) state.messages.set(id, { channelId: undefined, topic: undefined, participants, mention: undefined });
  }

  private onMessage(state: State, event: UnreadEvent, subscription: SubscriptionOf): void {
    const flags = event.flags as unknown[];
    const message = event.message as Record<string, unknown>;
    if (!Array.isArray(flags) || typeof message?.id !== 'number') throw new TypeError('message event');
    // Read (the caller's own, a muted sender's), or not received (a channel the caller only sees).
    if (flags.includes('read') || flags.includes('historical')) return;
    const mention = mentionOf(flags);
    if (message.type === 'stream') {
      const channelId = message.stream_id as number;
      if (!subscription(channelId)) return;
      state.messages.set(message.id, { channelId, topic: message.subject as string, participants: undefined, mention });
    } else {
      const recipients = message.display_recipient as { id: number }[];
      state.messages.set(message.id, { channelId: undefined, topic: undefined, participants: ascending(recipients.map((r) => r.id)), mention });
    }
  }

  private onFlags(state: State, event: UnreadEvent): void {
    const ids = event.messages as number[];
    const op = event.op ?? event.operation;
    if (event.flag === 'read') {
      if (op === 'add') {
        if (event.all === true) {
          state.messages.clear();
          state.oldUnreadsMissing = false;
        } else for (const id of ids) state.messages.delete(id);
        return;
      }
      // Marked unread: message_details says where each message is (https://zulip.com/api/get-events#update_message_flags-remove).
      const details = (event.message_details ?? {}) as Record<string, { type: string; stream_id?: number; topic?: string; user_ids?: number[]; mentioned?: boolean }>;
      for (const id of ids) {
        const detail = details[String(id)];
        if (!detail) continue; // older servers left out messages of unsubscribed channels
        const mention: Mention = detail.mentioned === true ? 'counted' : undefined;
        if (detail.type === 'stream') {
          state.messages.set(id, { channelId: detail.stream_id!, topic: detail.topic!, participants: undefined, mention });
        } else {
          state.messages.set(id, { channelId: undefined, topic: undefined, participants: ascending([...detail.user_ids!, this.selfId]), mention });
        }
      }
      return;
    }
    const kind = mentionOf([event.flag]);
    if (!kind) return;
    for (const id of ids) {
      const message = state.messages.get(id);
      if (message) message.mention = op === 'add' ? kind : undefined;
    }
  }

  private onUpdate(state: State, event: UnreadEvent): void {
    const ids = (event.message_ids as number[] | undefined) ?? [event.message_id as number];
    const newChannel = event.new_stream_id as number | undefined;
    const newTopic = event.subject as string | undefined;
    if (newChannel !== undefined || newTopic !== undefined) {
      for (const id of ids) {
        const message = state.messages.get(id);
        if (!message || message.participants) continue;
        if (newChannel !== undefined) message.channelId = newChannel;
        if (newTopic !== undefined) message.topic = newTopic;
      }
    }
    // An edit sends the edited message's flags: its mentions may have changed with its content.
    const message = state.messages.get(event.message_id as number);
    if (message && Array.isArray(event.flags) && typeof event.content === 'string') message.mention = mentionOf(event.flags as unknown[]);
  }
}

function setPolicy(state: State, entry: UserTopic): void {
  const key = topicKey(entry.stream_id, entry.topic_name);
  if (entry.visibility_policy === VisibilityPolicies.NONE) state.policies.delete(key);
  else state.policies.set(key, entry.visibility_policy);
}
