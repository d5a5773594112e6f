/**
 * Per-subscription filters. One upstream queue serves every subscription of a credential, so each
 * subscription's filter runs here, in the gateway, on events the queue delivered unnarrowed
 * (docs/events.md, "Fan-out by filter"). Narrow terms follow Zulip's event-narrow semantics:
 * channel by ID or name (case-insensitive), topic (case-insensitive), sender, direct-message conversations, and the
 * `is:` states that can be read from an event (dm, unread, starred, mentioned, alerted, resolved).
 *
 * Events that do not carry everything a term needs (an edit says which message, not its topic) are
 * decided with a small index of recently seen messages; failing that, the verdict is `lookup` and
 * the caller decides once it has loaded the message ({@link EventFilter.testMessage}).
 *
 * With any narrow term, only events about a matching conversation pass: messages and their edits,
 * moves, deletions, reactions and submessages; typing; and channel-level events (channel,
 * subscription and topic-preference changes) for channel and topic terms. Resync always passes.
 */
import type { Message } from '../../zulip/model/messages.js';
import { messageIdOf, type EventKind, type GatewayEvent } from './model.js';

export type NarrowState = 'dm' | 'unread' | 'starred' | 'mentioned' | 'alerted' | 'resolved';

/** One condition; `negated` inverts it. */
export type FilterTerm = (
  | { operator: 'channel'; channelId: number }
  | { operator: 'channelName'; name: string }
  | { operator: 'topic'; topic: string }
  | { operator: 'sender'; userId: number }
  | { operator: 'dm'; userIds: number[] }
  | { operator: 'dmIncluding'; userId: number }
  | { operator: 'is'; state: NarrowState }
  | { operator: 'id'; messageId: number }
) & { negated?: boolean };

export interface FilterSpec {
  /** Kinds to deliver; undefined means every kind. */
  kinds?: readonly EventKind[];
  /** All must hold. */
  terms?: readonly FilterTerm[];
}

/** Where a message lives and what the caller knows of it; missing fields are unknown. */
export interface MessageLocation {
  messageId?: number;
  type?: 'stream' | 'private';
  channelId?: number;
  channelName?: string;
  topic?: string;
  senderId?: number;
  /** Direct messages: every participant, sender and caller included. */
  userIds?: number[];
  flags?: string[];
}

export type Verdict = boolean | 'lookup';

export interface EventFilter {
  readonly spec: FilterSpec;
  /** Whether the event passes, or `lookup` when only the message itself can tell. */
  test(event: GatewayEvent, index: MessageIndex): Verdict;
  /** Decides a `lookup` verdict with the message as it is now. */
  testMessage(event: GatewayEvent, message: Message): boolean;
}

const MENTION_FLAGS = ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'wildcard_mentioned', 'group_mentioned'];
const RESOLVED_PREFIX = '\u2714 ';

/** Kinds that happen in a conversation (as opposed to channel-level events). */
const PLACED = new Set<EventKind>([
  'MESSAGE',
  'MESSAGE_UPDATED',
  'MESSAGE_MOVED',
  'MESSAGE_DELETED',
  'REACTION_ADDED',
  'REACTION_REMOVED',
  'SUBMESSAGE',
  'TYPING_EDIT_MESSAGE',
  'TYPING_STARTED',
  'TYPING_STOPPED',
]);

/** Kinds about one message, decided by that message's location. */
const MESSAGE_SCOPED = new Set<EventKind>(['MESSAGE_UPDATED', 'REACTION_ADDED', 'REACTION_REMOVED', 'SUBMESSAGE', 'TYPING_EDIT_MESSAGE']);

function locationOf(message: Message): MessageLocation {
  const location: MessageLocation = {
    messageId: message.id,
    type: message.type,
    topic: message.subject,
    senderId: message.sender_id,
    flags: message.flags ?? [],
  };
  if (message.type === 'stream') {
    if (message.stream_id !== undefined) location.channelId = message.stream_id;
    if (typeof message.display_recipient === 'string') location.channelName = message.display_recipient;
  } else if (Array.isArray(message.display_recipient)) {
    location.userIds = message.display_recipient.map((r) => r.id);
  }
  return location;
}

/**
 * Recently seen messages by ID (bounded, oldest forgotten first), kept current from the stream
 * itself: new messages, moves and deletions.
 */
export class MessageIndex {
  private readonly byId = new Map<number, MessageLocation>();
  private readonly channelNames = new Map<number, string>();

  constructor(private readonly capacity = 10_000) {}

  get(messageId: number): MessageLocation | undefined {
    return this.byId.get(messageId);
  }

  channelName(channelId: number): string | undefined {
    return this.channelNames.get(channelId);
  }

  /** Updates the index from an event (call before filtering it). */
  learn(event: GatewayEvent): void {
    if (event.kind === 'MESSAGE') {
      const location = locationOf(event.message);
      this.remember(event.message.id, location);
      if (location.channelId !== undefined && location.channelName) this.channelNames.set(location.channelId, location.channelName);
    } else if (event.kind === 'MESSAGE_MOVED') {
      const { new_stream_id: channelId, subject: topic } = event.wire;
      for (const id of event.wire.message_ids) {
        const known = this.byId.get(id);
        if (!known) continue;
        if (channelId !== undefined) (known.channelId = channelId), delete known.channelName;
        if (typeof topic === 'string') known.topic = topic;
      }
    } else if (event.kind === 'MESSAGE_DELETED') {
      for (const id of event.messageIds) this.byId.delete(id);
    } else if (event.kind === 'FLAGS_ADDED' || event.kind === 'FLAGS_REMOVED') {
      for (const id of event.wire.messages) {
        const known = this.byId.get(id);
        if (!known?.flags) continue;
        const others = known.flags.filter((f) => f !== event.wire.flag);
        known.flags = event.kind === 'FLAGS_ADDED' ? [...others, event.wire.flag] : others;
      }
    }
  }

  private remember(id: number, location: MessageLocation): void {
    this.byId.delete(id);
    this.byId.set(id, location);
    if (this.byId.size > this.capacity) this.byId.delete(this.byId.keys().next().value!);
  }
}

/** Three-valued logic: undefined is "cannot tell from what is known". */
type Maybe = boolean | undefined;

/** Zulip compares channel names, topics and emails case-insensitively. */
function sameIgnoringCase(a: string, b: string): boolean {
  return a.length === b.length && (a === b || a.toLowerCase() === b.toLowerCase());
}

function evaluateTerm(term: FilterTerm, at: MessageLocation, index: MessageIndex): Maybe {
  switch (term.operator) {
    case 'channel':
      if (at.type === 'private') return false;
      return at.channelId === undefined ? undefined : at.channelId === term.channelId;
    case 'channelName': {
      if (at.type === 'private') return false;
      const name = at.channelName ?? (at.channelId !== undefined ? index.channelName(at.channelId) : undefined);
      return name === undefined ? undefined : sameIgnoringCase(name, term.name);
    }
    case 'topic':
      if (at.type === 'private') return false;
      return at.topic === undefined ? undefined : sameIgnoringCase(at.topic, term.topic);
    case 'sender':
      return at.senderId === undefined ? undefined : at.senderId === term.userId;
    case 'dm':
      if (at.type === 'stream') return false;
      return at.userIds === undefined ? undefined : sameConversation(at.userIds, term.userIds);
    case 'dmIncluding':
      if (at.type === 'stream') return false;
      return at.userIds === undefined ? undefined : at.userIds.includes(term.userId);
    case 'id':
      return at.messageId === undefined ? undefined : at.messageId === term.messageId;
    case 'is':
      return evaluateState(term.state, at);
  }
}

function evaluateState(state: NarrowState, at: MessageLocation): Maybe {
  if (state === 'dm') return at.type === undefined ? undefined : at.type === 'private';
  if (state === 'resolved') {
    if (at.type === 'private') return false;
    return at.topic === undefined ? undefined : at.topic.startsWith(RESOLVED_PREFIX);
  }
  const flags = at.flags;
  if (flags === undefined) return undefined;
  if (state === 'unread') return !flags.includes('read');
  if (state === 'starred') return flags.includes('starred');
  if (state === 'alerted') return flags.includes('has_alert_word');
  return flags.some((f) => MENTION_FLAGS.includes(f));
}

/**
 * `dm:[a, b]` is the conversation of the caller with exactly a and b. The participants list holds
 * the caller too, whom the filter does not know: everyone named must take part, and at most one
 * participant (the caller) may be unnamed.
 */
function sameConversation(participants: number[], named: number[]): boolean {
  const set = new Set(participants);
  if (!named.every((id) => set.has(id))) return false;
  const unnamed = [...set].filter((id) => !named.includes(id));
  return unnamed.length <= 1;
}

function evaluateAll(terms: readonly FilterTerm[], at: MessageLocation, index: MessageIndex): Maybe {
  let result: Maybe = true;
  for (const term of terms) {
    const value = evaluateTerm(term, at, index);
    const adjusted = value === undefined ? undefined : term.negated ? !value : value;
    if (adjusted === false) return false;
    if (adjusted === undefined) result = undefined;
  }
  return result;
}

/** Where an event happened, for each place it concerns (a move concerns two). */
function locationsOf(event: GatewayEvent, index: MessageIndex): MessageLocation[] | 'message' | undefined {
  if (event.kind === 'MESSAGE') return [locationOf(event.message)];
  if (MESSAGE_SCOPED.has(event.kind)) {
    const id = messageIdOf(event)!;
    const known = index.get(id);
    if (known) return [known];
    const channelId = event.kind === 'MESSAGE_UPDATED' ? event.wire.stream_id : undefined;
    return channelId === undefined ? 'message' : [{ messageId: id, type: 'stream', channelId }];
  }
  switch (event.kind) {
    case 'MESSAGE_MOVED': {
      const w = event.wire;
      const known = index.get(w.message_id) ?? {};
      const from: MessageLocation = { ...known, type: 'stream' };
      if (w.stream_id !== undefined) from.channelId = w.stream_id;
      if (w.orig_subject !== undefined) from.topic = w.orig_subject;
      const to: MessageLocation = { ...from, channelId: w.new_stream_id ?? from.channelId!, topic: w.subject ?? from.topic! };
      if (w.new_stream_id !== undefined) delete to.channelName;
      return [from, to];
    }
    case 'MESSAGE_DELETED': {
      const w = event.wire;
      const known = index.get(event.messageIds[0]!) ?? {};
      const at: MessageLocation = { ...known, type: w.message_type === 'private' ? 'private' : 'stream' };
      if (w.stream_id !== undefined) at.channelId = w.stream_id;
      if (w.topic !== undefined) at.topic = w.topic;
      return [at];
    }
    case 'TYPING_STARTED':
    case 'TYPING_STOPPED': {
      const w = event.wire;
      const direct = w.message_type !== 'stream';
      const at: MessageLocation = { type: direct ? 'private' : 'stream', senderId: w.sender.user_id };
      if (direct) at.userIds = (w.recipients ?? []).map((r) => r.user_id);
      else if (w.stream_id !== undefined) (at.channelId = w.stream_id), (at.topic = w.topic ?? '');
      return [at];
    }
    default:
      return channelLocations(event);
  }
}

/** Channel-level events: where they apply, with no topic, sender or flags. */
function channelLocations(event: GatewayEvent): MessageLocation[] | undefined {
  if (!('wire' in event)) return undefined;
  const w = event.wire;
  const ids: number[] = [];
  if (event.kind === 'USER_TOPIC' && typeof w.stream_id === 'number') {
    return [{ type: 'stream', channelId: w.stream_id, topic: String(w.topic_name ?? '') }];
  }
  if (event.kind !== 'CHANNEL' && event.kind !== 'SUBSCRIPTION') return undefined;
  if (typeof w.stream_id === 'number') ids.push(w.stream_id);
  if (Array.isArray(w.stream_ids)) ids.push(...w.stream_ids.filter((id): id is number => typeof id === 'number'));
  for (const list of [w.streams, w.subscriptions]) {
    if (!Array.isArray(list)) continue;
    for (const item of list) if (typeof item?.stream_id === 'number') ids.push(item.stream_id);
  }
  return ids.map((channelId) => ({ type: 'stream', channelId, flags: [] }));
}

/** Terms that a channel-level event can answer; anything about messages fails it. */
function channelLevelOnly(terms: readonly FilterTerm[]): boolean {
  return terms.every((t) => t.operator === 'channel' || t.operator === 'channelName' || t.operator === 'topic');
}

export function compileFilter(spec: FilterSpec): EventFilter {
  const kinds = spec.kinds ? new Set(spec.kinds) : undefined;
  const terms = spec.terms ?? [];

  const placeVerdict = (event: GatewayEvent, index: MessageIndex): Verdict => {
    const places = locationsOf(event, index);
    if (places === 'message') return 'lookup';
    if (!places || places.length === 0) return false;
    if (!PLACED.has(event.kind) && !channelLevelOnly(terms)) return false;
    let undecided = false;
    for (const place of places) {
      const value = evaluateAll(terms, place, index);
      if (value === true) return true;
      if (value === undefined) undecided = true;
    }
    // Deleted messages cannot be looked up, and a move is about several: deliver rather than lose.
    if (undecided && (event.kind === 'MESSAGE_DELETED' || event.kind === 'MESSAGE_MOVED')) return true;
    return undecided && messageIdOf(event) !== undefined ? 'lookup' : false;
  };

  return {
    spec,
    test(event, index) {
      if (event.kind === 'RESYNC') return true;
      if (kinds && !kinds.has(event.kind)) return false;
      return terms.length === 0 ? true : placeVerdict(event, index);
    },
    testMessage(_event, message) {
      return evaluateAll(terms, locationOf(message), new MessageIndex(1)) !== false;
    },
  };
}
