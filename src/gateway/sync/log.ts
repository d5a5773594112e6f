/**
 * One credential's compacted change log: what its event stream changed, kept as final states
 * keyed by object, each with the stream position (sequence number) of its last change. It answers
 * "what changed since position S" (`changes(since:)`, docs/mobile-sync.md) without going upstream.
 *
 * - Compaction on write: 500 edits of one message are one record (its final content and topic);
 *   a message created and then deleted after S is in neither list; a flag set and cleared is its
 *   final value; a user, channel, subscription or group is one record per id (its final state is
 *   read from the live directory when the changes are asked for).
 * - Positions: events are staged as they arrive (`stage`) and committed at the position the stream
 *   reached after their batch (`commit`), the same sequence numbers subscription cursors carry.
 * - The log covers the stream from its `floor` on: a stamp older than the floor, of another
 *   generation (another session, a restarted gateway) or newer than the log is not answerable
 *   (`resyncRequired`), never a silent gap. A replaced queue moves the floor (`reset`).
 */
import type { Message } from '../../zulip/model/messages.js';
import type { Cursor } from '../events/buffer.js';
import type { RawEvent } from '../events/model.js';
import { eventTypeEntry, type SyncEffect } from '../events/types.js';
import { compact, expand, isDictionaryKey, KEY, load, seqOf, store, type CompactMessage, type Dictionary } from './records.js';

/** A message the log saw created or changed (stored as `KEY.message`). */
interface MessageRecord {
  /** Set when the log saw the message created: its final state is `m`. */
  c?: number;
  m?: CompactMessage;
  /** When `m`'s content or place last changed (its flags and reactions are reported on their own). */
  x?: number;
  /** For a message created before the log: what its edits and moves changed, final values. */
  e?: EditedMessage;
  d?: 1;
}

/** The final state of an edit or move of a message the log did not see created. */
export interface EditedMessage {
  id: number;
  /** Rendered HTML, when the content was edited. */
  content?: string;
  /** When the message was moved or its topic edited: where it is now. */
  topic?: string;
  channelId?: number;
  /** UNIX seconds of the last edit or move. */
  editTimestamp?: number;
}

/** Kinds of directory objects, each one record per id. */
export type ObjectKind = 'user' | 'channel' | 'subscription' | 'userGroup';
const OBJECT_KINDS: readonly ObjectKind[] = ['user', 'channel', 'subscription', 'userGroup'];

export interface ReactionChange {
  messageId: number;
  userId: number;
  emojiName: string;
  emojiCode: string;
  reactionType: string;
  added: boolean;
}

/** The flags whose changes are reported; `mentioned` folds every kind of mention. */
export const SYNC_FLAGS = ['read', 'starred', 'mentioned'] as const;
export type SyncFlag = (typeof SYNC_FLAGS)[number];

const MENTION_FLAGS = new Set(['mentioned', 'wildcard_mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned']);

/**
 * A new message as the log holds it: what groups it into a conversation, and its final state,
 * expanded only when asked for (a client asks for the newest few of each conversation).
 */
export interface NewMessage {
  id: number;
  type: Message['type'];
  channelId: number | undefined;
  topic: string;
  /** Direct messages: every participant, ascending. */
  userIds: number[] | undefined;
  message(): Message;
}

/** What the log answers for one stamp. */
export interface ChangeSet {
  /** New messages (final state), ascending by id. */
  created: NewMessage[];
  edited: EditedMessage[];
  deletedIds: number[];
  flags: Map<SyncFlag, { set: number[]; cleared: number[] }>;
  objects: Map<ObjectKind, { changedIds: number[]; removedIds: number[] }>;
  reactions: ReactionChange[];
  settings: Map<string, unknown>;
  /** Other events, compacted by what they are about (see {@link otherKey}), oldest first. */
  others: RawEvent[];
}

export type Since = { changes: ChangeSet } | { resyncRequired: 'unknown' | 'expired' };

/** Where a log stands: what a copy of it (in Redis, sync/redis.ts) needs besides its records. */
export interface LogMeta {
  generation: string;
  floor: number;
  lastSeq: number;
}

/** Heap bytes of one map entry besides its two strings (V8's hash table slot and string headers). */
const ENTRY_OVERHEAD = 64;

export class ChangeLog {
  private generation: string | undefined;
  /** Stamps at or after the floor are answerable. */
  private floor = 0;
  private lastSeq = 0;
  private staged: RawEvent[] = [];
  /** Every record, `<seq> <JSON>` by key (records.ts), in order of last change. */
  private readonly records = new Map<string, string>();
  /** Keys written (or deleted: absent from `records`) since the last {@link takeDirty}; undefined when nobody copies the log. */
  private dirty: Set<string> | undefined;
  /** The log restarted since the last {@link takeDirty}: a copy must be replaced whole. */
  private restarted = false;
  /** Estimated heap bytes of every record. */
  bytes = 0;

  /** The stream position the log has reached, as a cursor; undefined before the first commit. */
  get position(): Cursor | undefined {
    return this.generation === undefined ? undefined : { generation: this.generation, seq: this.lastSeq };
  }

  get meta(): LogMeta | undefined {
    return this.generation === undefined ? undefined : { generation: this.generation, floor: this.floor, lastSeq: this.lastSeq };
  }

  /** Starts tracking what changes, for a copy kept elsewhere (sync/redis.ts). */
  trackChanges(): void {
    this.dirty ??= new Set();
    this.restarted = true;
  }

  /** What changed since the last call: the records to write (undefined: deleted), or the whole log after a restart. */
  takeDirty(): { whole: boolean; records: Map<string, string | undefined> } | undefined {
    if (!this.dirty) return undefined;
    const whole = this.restarted;
    const keys = whole ? this.records.keys() : this.dirty.values();
    const records = new Map<string, string | undefined>();
    for (const key of keys) records.set(key, this.records.get(key));
    this.dirty.clear();
    this.restarted = false;
    return { whole, records };
  }

  /** Every record, for a copy written whole. */
  entries(): IterableIterator<[string, string]> {
    return this.records.entries();
  }

  /** A log read back from its copy (the other instance that wrote it had followed the same stream). */
  static from(meta: LogMeta, records: Iterable<[string, string]>): ChangeLog {
    const log = new ChangeLog();
    log.generation = meta.generation;
    log.floor = meta.floor;
    log.lastSeq = meta.lastSeq;
    // Kept in order of last change (a Redis hash has no order).
    for (const [key, stored] of [...records].sort((a, b) => seqOf(a[1]) - seqOf(b[1]))) log.set(key, stored);
    return log;
  }

  /** Events of a batch, before its position is known. */
  stage(events: readonly RawEvent[]): void {
    for (const event of events) if (syncEffect(event.type) !== 'none') this.staged.push(event);
  }

  /**
   * The stream reached `position`: the staged events are recorded at it. A position of another
   * generation (a new session or log) restarts the log there.
   */
  commit(position: Cursor): void {
    if (position.generation !== this.generation) {
      this.clear();
      this.generation = position.generation;
      this.floor = position.seq;
    }
    this.lastSeq = position.seq;
    const staged = this.staged;
    this.staged = [];
    for (const event of staged) this.record(event, position.seq);
  }

  /** Events may have been missed (a replaced queue, a broken log): nothing before the next position is answerable. */
  reset(): void {
    this.clear();
    this.generation = undefined;
  }

  /** Forgets everything: only stamps from now on are answerable (retention ended, memory cap, purge). */
  restartHere(): void {
    this.clear();
    this.staged = [];
    this.floor = this.lastSeq;
  }

  /** Whether `stamp` names a position this log can answer from. */
  answers(stamp: Cursor): boolean {
    return stamp.generation === this.generation && stamp.seq >= this.floor && stamp.seq <= this.lastSeq;
  }

  /** The changes after `stamp`, compacted (the compaction happened as they were written). */
  since(stamp: Cursor): Since {
    if (stamp.generation !== this.generation) return { resyncRequired: 'unknown' };
    if (stamp.seq > this.lastSeq) return { resyncRequired: 'unknown' };
    if (stamp.seq < this.floor) return { resyncRequired: 'expired' };
    const after = stamp.seq;
    const changes: ChangeSet = {
      created: [],
      edited: [],
      deletedIds: [],
      flags: new Map(SYNC_FLAGS.map((f) => [f, { set: [], cleared: [] }])),
      objects: new Map(OBJECT_KINDS.map((k) => [k, { changedIds: [], removedIds: [] }])),
      reactions: [],
      settings: new Map(),
      others: [],
    };
    const createdIds = new Set<number>();
    const gone = new Set<number>();
    const later: [string, string][] = [];
    // Records are in order of last change: those after the stamp are at the end, read backwards.
    const all = [...this.records];
    for (let i = all.length - 1; i >= 0; i--) {
      const entry = all[i]!;
      if (isDictionaryKey(entry[0])) continue;
      if (seqOf(entry[1]) <= after) break;
      later.push(entry);
    }
    later.reverse();
    // Parsed once per answer, however many messages name the same sender or channel.
    const parsed = new Map<string, string | undefined>();
    const dictionary: Dictionary = {
      get: (key) => (parsed.has(key) ? parsed.get(key) : (parsed.set(key, this.records.get(key)), parsed.get(key))),
      set: () => undefined,
    };
    for (const [key, stored] of later) {
      if (!key.startsWith('m:')) continue;
      const id = Number(key.slice(2));
      const record = load<MessageRecord>(stored);
      const createdAfter = record.c !== undefined && record.c > after;
      if (record.d) {
        gone.add(id);
        if (!createdAfter) changes.deletedIds.push(id);
      } else if (createdAfter && record.m) {
        createdIds.add(id);
        changes.created.push(newMessage(id, record.m, dictionary));
      } else if (record.m && (record.x ?? 0) > after) {
        changes.edited.push(editOf(expand(record.m, dictionary)));
      } else if (record.e) {
        changes.edited.push(record.e);
      }
    }
    for (const [key, stored] of later) {
      const kind = key[0];
      if (kind === 'f') {
        const [, flag, idText] = key.split(':') as [string, SyncFlag, string];
        const id = Number(idText);
        if (createdIds.has(id) || gone.has(id)) continue; // a new message carries its flags; a deleted one has none
        changes.flags.get(flag)![load<{ set: boolean }>(stored).set ? 'set' : 'cleared'].push(id);
      } else if (kind === 'o') {
        const [, objectKind, idText] = key.split(':') as [string, ObjectKind, string];
        const lists = changes.objects.get(objectKind)!;
        (load<{ removed: boolean }>(stored).removed ? lists.removedIds : lists.changedIds).push(Number(idText));
      } else if (kind === 'r') {
        const reaction = load<ReactionChange>(stored);
        if (!createdIds.has(reaction.messageId) && !gone.has(reaction.messageId)) changes.reactions.push(reaction);
      } else if (kind === 's') {
        changes.settings.set(key.slice(2), load<{ v: unknown }>(stored).v);
      } else if (kind === 'e') {
        changes.others.push(load<RawEvent>(stored));
      }
    }
    changes.created.sort((a, b) => a.id - b.id);
    changes.edited.sort((a, b) => a.id - b.id);
    changes.deletedIds.sort((a, b) => a - b);
    return { changes };
  }

  /** Forgets everything older than what any kept stamp could ask for: the floor moves to `seq`. */
  forgetBefore(seq: number): void {
    if (seq <= this.floor) return;
    this.floor = Math.min(seq, this.lastSeq);
    for (const [key, stored] of this.records) {
      if (seqOf(stored) > this.floor) break; // in order of last change: the rest is newer
      if (!isDictionaryKey(key)) this.delete(key);
    }
  }

  private dictionary(): Dictionary {
    return { get: (key) => this.records.get(key), set: (key, stored) => this.set(key, stored) };
  }

  private clear(): void {
    this.records.clear();
    this.bytes = 0;
    if (this.dirty) {
      this.dirty.clear();
      this.restarted = true;
    }
  }

  private delete(key: string): void {
    const old = this.records.get(key);
    if (old === undefined) return;
    this.bytes -= ENTRY_OVERHEAD + key.length + old.length;
    this.records.delete(key);
    this.dirty?.add(key);
  }

  private set(key: string, stored: string): void {
    const old = this.records.get(key);
    if (old !== undefined) {
      this.bytes -= ENTRY_OVERHEAD + key.length + old.length;
      // Re-inserted last: the map stays in order of last change (dictionary records stay where they are).
      if (!isDictionaryKey(key)) this.records.delete(key);
    }
    this.records.set(key, stored);
    this.bytes += ENTRY_OVERHEAD + key.length + stored.length;
    this.dirty?.add(key);
  }

  private put(key: string, seq: number, value: unknown): void {
    this.set(key, store(seq, value));
  }

  private message(id: number): MessageRecord | undefined {
    const stored = this.records.get(KEY.message(id));
    return stored === undefined ? undefined : load<MessageRecord>(stored);
  }

  private record(event: RawEvent, seq: number): void {
    switch (syncEffect(event.type)) {
      case 'created':
        return this.created(event, seq);
      case 'edited':
        return this.updated(event, seq);
      case 'deleted': {
        const ids = Array.isArray(event.message_ids) ? (event.message_ids as number[]) : [event.message_id as number];
        for (const id of ids) {
          const old = this.message(id);
          this.put(KEY.message(id), seq, { ...(old?.c !== undefined && { c: old.c }), d: 1 } satisfies MessageRecord);
        }
        return;
      }
      case 'flags':
        return this.flagged(event, seq);
      case 'reaction':
        return this.reacted(event, seq);
      case 'user': {
        const person = event.person as { user_id?: number } | undefined;
        if (typeof person?.user_id === 'number') this.object('user', person.user_id, event.op === 'remove', seq);
        return;
      }
      case 'channel': {
        const streams = (event.streams as { stream_id: number }[] | undefined) ?? [];
        const ids = typeof event.stream_id === 'number' ? [event.stream_id] : [...streams.map((s) => s.stream_id), ...((event.stream_ids as number[] | undefined) ?? [])];
        for (const id of ids) this.object('channel', id, event.op === 'delete', seq);
        return;
      }
      case 'subscription':
        return this.subscribed(event, seq);
      case 'userGroup': {
        const group = event.group as { id?: number } | undefined;
        const id = typeof event.group_id === 'number' ? event.group_id : group?.id;
        if (typeof id === 'number') this.object('userGroup', id, event.op === 'remove', seq);
        return;
      }
      case 'setting':
        if (event.op === 'update' && typeof event.property === 'string') this.put(KEY.setting(event.property), seq, { v: event.value });
        return;
      case 'none':
        return;
      case 'other': {
        // Only what a client reads: the queue's event id is not part of the change.
        const { id: _id, ...rest } = event;
        this.put(KEY.other(otherKey(event)), seq, rest);
      }
    }
  }

  private created(event: RawEvent, seq: number): void {
    const wire = event.message as Message | undefined;
    const flags = Array.isArray(event.flags) ? (event.flags as string[]) : [];
    if (typeof wire?.id !== 'number' || flags.includes('historical')) return;
    const message = compact({ ...wire, flags: [...flags] }, this.dictionary());
    this.put(KEY.message(wire.id), seq, { c: seq, m: message } satisfies MessageRecord);
  }

  private updated(event: RawEvent, seq: number): void {
    const ids = new Set<number>(Array.isArray(event.message_ids) ? (event.message_ids as number[]) : []);
    if (typeof event.message_id === 'number') ids.add(event.message_id);
    const topic = typeof event.subject === 'string' ? event.subject : typeof event.topic === 'string' ? event.topic : undefined;
    const channelId = typeof event.new_stream_id === 'number' ? event.new_stream_id : undefined;
    const content = typeof event.rendered_content === 'string' ? event.rendered_content : undefined;
    const editTimestamp = typeof event.edit_timestamp === 'number' ? event.edit_timestamp : undefined;
    // Edit events without a user are the server's own (link previews): the content changes just the same.
    for (const id of ids) {
      const old = this.message(id);
      if (old?.d) continue;
      const isEdited = id === event.message_id;
      if (old?.m) {
        const message = { ...old.m };
        if (content !== undefined && isEdited) message.content = content;
        if (topic !== undefined) message.subject = topic;
        if (channelId !== undefined) {
          message.stream_id = channelId;
          // The channel's name is the dictionary's for the new channel, when it has one.
          delete message.display_recipient;
        }
        if (editTimestamp !== undefined) {
          if (content !== undefined && isEdited) message.last_edit_timestamp = editTimestamp;
          if (topic !== undefined || channelId !== undefined) message.last_moved_timestamp = editTimestamp;
        }
        if (isEdited && Array.isArray(event.flags)) message.flags = [...(event.flags as string[])];
        this.put(KEY.message(id), seq, { ...old, m: message, x: seq } satisfies MessageRecord);
      } else {
        const edit: EditedMessage = { ...old?.e, id };
        if (content !== undefined && isEdited) edit.content = content;
        if (topic !== undefined) edit.topic = topic;
        if (channelId !== undefined) edit.channelId = channelId;
        if (editTimestamp !== undefined) edit.editTimestamp = editTimestamp;
        this.put(KEY.message(id), seq, { e: edit } satisfies MessageRecord);
      }
      if (isEdited && Array.isArray(event.flags)) {
        const mentioned = (event.flags as string[]).some((f) => MENTION_FLAGS.has(f));
        this.put(KEY.flag('mentioned', id), seq, { set: mentioned });
      }
    }
  }

  private flagged(event: RawEvent, seq: number): void {
    const name = event.flag as string;
    const flag: SyncFlag | undefined = name === 'read' || name === 'starred' ? name : MENTION_FLAGS.has(name) ? 'mentioned' : undefined;
    if (!flag) return;
    const set = event.op === 'add';
    if (event.all === true) {
      // "Everything read" names no messages: a stamp before it cannot be answered message by message.
      this.clear();
      this.floor = seq;
      return;
    }
    const ids = (event.messages as number[] | undefined) ?? [];
    for (const id of ids) {
      this.put(KEY.flag(flag, id), seq, { set });
      const record = this.message(id);
      if (record?.m) {
        const flags = new Set(record.m.flags as string[]);
        if (set) flags.add(name);
        else flags.delete(name);
        this.put(KEY.message(id), seq, { ...record, m: { ...record.m, flags: [...flags] } } satisfies MessageRecord);
      }
    }
  }

  private reacted(event: RawEvent, seq: number): void {
    const messageId = event.message_id as number;
    const reaction: ReactionChange = {
      messageId,
      userId: event.user_id as number,
      emojiName: event.emoji_name as string,
      emojiCode: event.emoji_code as string,
      reactionType: event.reaction_type as string,
      added: event.op === 'add',
    };
    this.put(KEY.reaction(messageId, reaction.userId, reaction.reactionType, reaction.emojiCode), seq, reaction);
    const record = this.message(messageId);
    if (record?.m) {
      type Reaction = Message['reactions'][number];
      const same = (r: Reaction) => r.user_id === reaction.userId && r.emoji_code === reaction.emojiCode && r.reaction_type === reaction.reactionType;
      const others = ((record.m.reactions as Reaction[] | undefined) ?? []).filter((r) => !same(r));
      const reactions = reaction.added
        ? [...others, { emoji_name: reaction.emojiName, emoji_code: reaction.emojiCode, reaction_type: reaction.reactionType as Reaction['reaction_type'], user_id: reaction.userId }]
        : others;
      this.put(KEY.message(messageId), seq, { ...record, m: { ...record.m, reactions } } satisfies MessageRecord);
    }
  }

  private subscribed(event: RawEvent, seq: number): void {
    const listed = ((event.subscriptions as ({ stream_id: number } | number)[] | undefined) ?? []).map((s) => (typeof s === 'number' ? s : s.stream_id));
    const ids = [...listed, ...(typeof event.stream_id === 'number' ? [event.stream_id] : []), ...((event.stream_ids as number[] | undefined) ?? [])];
    for (const id of ids) this.object('subscription', id, event.op === 'remove', seq);
  }

  private object(kind: ObjectKind, id: number, removed: boolean, seq: number): void {
    this.put(KEY.object(kind, id), seq, { removed });
  }
}

function newMessage(id: number, stored: CompactMessage, dictionary: Dictionary): NewMessage {
  let message: Message | undefined;
  const recipients = stored.display_recipient;
  return {
    id,
    type: stored.type as Message['type'],
    channelId: stored.stream_id as number | undefined,
    topic: stored.subject as string,
    userIds: Array.isArray(recipients) ? (recipients as { id: number }[]).map((r) => r.id).sort((a, b) => a - b) : undefined,
    message: () => (message ??= expand(stored, dictionary)),
  };
}

/** What the change log keeps of an event of this type, as the event table says (`other` for a type it does not know). */
function syncEffect(type: string): SyncEffect {
  return eventTypeEntry(type)?.sync ?? 'other';
}

/** The final state of an edited message the log saw created (reported as an edit when created before the stamp). */
function editOf(message: Message): EditedMessage {
  return {
    id: message.id,
    content: message.content,
    topic: message.subject,
    ...(message.stream_id !== undefined && { channelId: message.stream_id }),
    ...((message.last_edit_timestamp ?? message.last_moved_timestamp) !== undefined && {
      editTimestamp: Math.max(message.last_edit_timestamp ?? 0, message.last_moved_timestamp ?? 0),
    }),
  };
}

/**
 * What an event is about, so that a later event about the same thing replaces it: its type with
 * the property, user, channel, topic or message it names. An event that names none of them (a
 * whole list, as `alert_words` or `realm_emoji` send) replaces the previous one of its type; an
 * add or remove of something unnamed keeps every event.
 */
function otherKey(event: RawEvent): string {
  const parts = [event.property, event.user_id, event.stream_id, event.topic_name, event.message_id, event.draft_id];
  const named = parts.filter((p) => p !== undefined && p !== null);
  if (named.length > 0) return `${event.type}:${event.op ?? ''}:${named.join(':')}`;
  if (event.op === 'add' || event.op === 'remove' || event.op === 'delete') return `${event.type}:${event.op}:#${event.id}`;
  return event.type;
}

