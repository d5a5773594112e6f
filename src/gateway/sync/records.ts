/**
 * How the change log (log.ts) stores its records: each one string, `<seq> <JSON>`, under a key
 * naming what it is about, so that a later change of the same thing replaces it (compaction at
 * write time), a reader finds the records after a stamp by their sequence number without parsing
 * the rest, and the same strings go to Redis as they are (sync/redis.ts).
 *
 * New messages are the bulk of a log, so they are kept small: what repeats from message to message
 * (the sender's name, email and avatar; a channel's name) is held once per log, in a dictionary
 * record, and fields at their usual value (no reactions, not a /me message) are left out; both are
 * put back when the message is read. A message whose repeated values differ from the dictionary's
 * (a sender renamed meanwhile) keeps its own.
 */
import type { Message } from '../../zulip/model/messages.js';

/** The sequence number of a stored record (the digits before its first space). */
export function seqOf(stored: string): number {
  return Number.parseInt(stored, 10);
}

export function store(seq: number, value: unknown): string {
  return `${seq} ${JSON.stringify(value)}`;
}

export function load<T>(stored: string): T {
  return JSON.parse(stored.slice(stored.indexOf(' ') + 1)) as T;
}

/** Record keys: one namespace each, so that a prefix says what a record is. */
export const KEY = {
  message: (id: number) => `m:${id}`,
  flag: (flag: string, id: number) => `f:${flag}:${id}`,
  object: (kind: string, id: number) => `o:${kind}:${id}`,
  reaction: (messageId: number, userId: number, type: string, code: string) => `r:${messageId}:${userId}:${type}:${code}`,
  setting: (name: string) => `s:${name}`,
  other: (about: string) => `e:${about}`,
  /** Dictionary records (see the header): never reported, kept as long as the log. */
  sender: (id: number) => `u:${id}`,
  channelName: (id: number) => `c:${id}`,
} as const;

export function isDictionaryKey(key: string): boolean {
  return key.startsWith('u:') || key.startsWith('c:');
}

/** What a message's sender repeats in every message. */
interface SenderFields {
  n: string;
  e: string;
  a: string | null;
  r: string;
}

/** Where a log keeps its dictionary (log.ts): read and written by key. */
export interface Dictionary {
  get(key: string): string | undefined;
  set(key: string, stored: string): void;
}

const SENDER_FIELDS = ['sender_full_name', 'sender_email', 'avatar_url', 'sender_realm_str'] as const;

/** Fields left out at their usual value, and that value. */
const USUAL: Readonly<Record<string, unknown>> = { is_me_message: false, content_type: 'text/html' };
const USUAL_EMPTY = ['reactions', 'submessages', 'topic_links'] as const;

/** A message as the log stores it: its own fields only (see the header). */
export type CompactMessage = Record<string, unknown>;

export function compact(message: Message, dictionary: Dictionary): CompactMessage {
  const out: CompactMessage = { ...message };
  const senderKey = KEY.sender(message.sender_id);
  const known = dictionary.get(senderKey);
  const sender: SenderFields = { n: message.sender_full_name, e: message.sender_email, a: message.avatar_url, r: message.sender_realm_str };
  const held = known === undefined ? undefined : load<SenderFields>(known);
  if (!held) dictionary.set(senderKey, store(0, sender));
  if (!held || (held.n === sender.n && held.e === sender.e && held.a === sender.a && held.r === sender.r)) for (const field of SENDER_FIELDS) delete out[field];
  if (message.type === 'stream' && typeof message.display_recipient === 'string' && message.stream_id !== undefined) {
    const channelKey = KEY.channelName(message.stream_id);
    const name = dictionary.get(channelKey);
    if (name === undefined) dictionary.set(channelKey, store(0, message.display_recipient));
    if (name === undefined || load<string>(name) === message.display_recipient) delete out.display_recipient;
  }
  for (const [field, value] of Object.entries(USUAL)) if (out[field] === value) delete out[field];
  for (const field of USUAL_EMPTY) if (Array.isArray(out[field]) && (out[field] as unknown[]).length === 0) delete out[field];
  return out;
}

export function expand(stored: CompactMessage, dictionary: Dictionary): Message {
  const message = { ...USUAL, ...stored } as Record<string, unknown>;
  for (const field of USUAL_EMPTY) message[field] ??= [];
  if (!('sender_email' in message)) {
    const held = dictionary.get(KEY.sender(message.sender_id as number));
    if (held) {
      const sender = load<SenderFields>(held);
      Object.assign(message, { sender_full_name: sender.n, sender_email: sender.e, avatar_url: sender.a, sender_realm_str: sender.r });
    }
  }
  if (!('display_recipient' in message) && typeof message.stream_id === 'number') {
    const name = dictionary.get(KEY.channelName(message.stream_id));
    if (name) message.display_recipient = load<string>(name);
  }
  return message as unknown as Message;
}
