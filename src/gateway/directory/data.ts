/** The state one credential's directory holds, shared by the event appliers in ./apply/. */
import type { Channel } from '../../zulip/model/channels.js';
import type { Subscription } from '../../zulip/model/subscriptions.js';
import type { UserGroup } from '../../zulip/model/user-groups.js';
import type { User } from '../../zulip/model/users.js';
import type { InternedMap } from './interned-map.js';
import type { Unreads } from './unreads.js';

export interface DirectoryData {
  users: InternedMap<User>;
  channels: InternedMap<Channel>;
  subscriptions: InternedMap<Subscription>;
  userGroups: InternedMap<UserGroup>;
  /** The kept realm keys (register.ts REALM_KEYS). */
  realm: Record<string, unknown>;
  selfId: number;
  featureLevel: number;
  /** The caller's unread messages (unreads.ts). */
  unreads: Unreads;
}

/** An event as the queue hands it over: the directory only reads it and copies what it keeps. */
export type DirectoryEvent = { id: number; type: string; op?: unknown; [key: string]: unknown };

/** A deep copy of a value taken from an event, so that freezing the stored copy never touches the event. */
export function own<T>(value: T): T {
  return structuredClone(value);
}

/** Sets `key` on `record` only when the record already has it, as Zulip's apply_event does. */
export function setKnown(record: object, key: string, value: unknown): void {
  if (key in record) (record as Record<string, unknown>)[key] = own(value);
}
