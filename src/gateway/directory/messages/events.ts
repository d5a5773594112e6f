/**
 * How one event of a credential's queue (https://zulip.com/api/get-events) changes that
 * credential's message windows. Applied exactly:
 * - `message`: appended to every window whose narrow matches it and whose range reaches it;
 * - `delete_message`: removed;
 * - `reaction` add/remove: the reaction list, in the server's order (oldest first);
 * - `update_message_flags` of the flags a client may change (`read`, `starred`, `collapsed`), on
 *   messages the caller received (a `historical` message gets a row of its own: not modelled).
 * Not applied, so the windows they touch are dropped (the next query fetches them again):
 * - `update_message` (edits change the edit history, whose visibility is a realm policy; moves
 *   bring in messages the event does not carry), `submessage`;
 * - a user's or channel's change that shows in the messages (names, emails, avatars, channel names);
 * - the caller leaving a channel a window is narrowed to (its new messages would no longer come);
 * - realm changes that change how messages are served (edit history visibility, linkifiers);
 * - any event type the event table (events/types.ts) does not know: the credential's windows are
 *   all dropped.
 * Replaying an event the window's fetch already reflected changes nothing, so events that arrived
 * while a window was being fetched are applied to it again once it is stored.
 */
import type { Message } from '../../../zulip/model/messages.js';
import type { Reaction } from '../../../zulip/model/reactions.js';
import { matchesExactly, type ExactNarrow, type MatchedMessage } from './narrow.js';
import type { MessageWindow } from './window.js';
import { eventTypeEntry } from '../../events/types.js';

/** Why windows were dropped (a bounded metric label). */
export type WindowDropReason = 'update' | 'flags' | 'user' | 'channel' | 'subscription' | 'realm' | 'event' | 'queue' | 'memory' | 'idle';

/** A window as the appliers see it. */
export interface WindowSlot {
  narrow: ExactNarrow;
  window: MessageWindow;
}

/** What one event did to a credential's windows. */
export interface EventOutcome {
  /** Windows to drop, and why. */
  drop: Map<WindowSlot, WindowDropReason>;
  /** Every window of the credential must go (an event the cache does not know). */
  dropAll?: WindowDropReason;
  /** The event type that made every window go, for the failure report. */
  unknownType?: string;
  /** Message IDs added, changed or removed in some window. */
  changed: number[];
}

/** Whether events of this type may change a cached message (a write causing one fences the cache). */
export function changesCachedMessages(type: string): boolean {
  // A type the event table does not know drops every window, so it counts as a change.
  return eventTypeEntry(type)?.messageCache !== 'none';
}

/** Realm properties that change how messages are served: edit history is shown by policy. */
const REALM_MESSAGE_KEYS: ReadonlySet<string> = new Set(['allow_edit_history', 'message_edit_history_visibility_policy']);

/** A user's properties that messages show: the sender's name, email and avatar, direct-message recipients' names and emails. */
const SHOWN_USER_KEYS: ReadonlySet<string> = new Set(['full_name', 'email', 'new_email', 'avatar_url', 'avatar_source', 'avatar_version', 'is_mirror_dummy']);

/** The flags `update_message_flags` may change, in the order the server lists a message's flags. */
const EDITABLE_FLAGS: readonly string[] = ['read', 'starred', 'collapsed'];

type Event = { id: number; type: string; [key: string]: unknown };

/** Applies `event` to `slots` (a credential's windows); see the file comment. */
export function applyToWindows(slots: readonly WindowSlot[], event: Event): EventOutcome {
  const outcome: EventOutcome = { drop: new Map(), changed: [] };
  const dropIf = (reason: WindowDropReason, test: (slot: WindowSlot) => boolean) => {
    for (const slot of slots) if (!outcome.drop.has(slot) && test(slot)) outcome.drop.set(slot, reason);
  };
  // What each type does here is the event table's (`messageCache`, events/types.ts).
  const effect = eventTypeEntry(event.type)?.messageCache;
  switch (effect) {
    case 'none':
      return outcome;
    case 'insert': {
      const flags = event.flags;
      const wire = event.message as Message | undefined;
      if (!Array.isArray(flags) || typeof wire?.id !== 'number') return { ...outcome, dropAll: 'event', unknownType: 'message' };
      // The queue is sent only messages the caller received; a historical one is not in their history.
      if (flags.includes('historical')) return outcome;
      const message = { ...wire, flags: [...(flags as string[])] } as Message;
      for (const slot of slots) {
        if (matchesExactly(slot.narrow, message as unknown as MatchedMessage) && slot.window.insert(message)) outcome.changed.push(message.id);
      }
      return outcome;
    }
    case 'remove': {
      const ids = new Set(Array.isArray(event.message_ids) ? (event.message_ids as number[]) : [event.message_id as number]);
      for (const slot of slots) outcome.changed.push(...slot.window.remove(ids));
      return outcome;
    }
    case 'reactions': {
      const id = event.message_id as number;
      const reaction: Reaction = {
        emoji_name: event.emoji_name as string,
        emoji_code: event.emoji_code as string,
        reaction_type: event.reaction_type as Reaction['reaction_type'],
        user_id: event.user_id as number,
      };
      const same = (r: Reaction) => r.user_id === reaction.user_id && r.emoji_code === reaction.emoji_code && r.reaction_type === reaction.reaction_type;
      for (const slot of slots) {
        const changed = slot.window.replace(id, (m) => {
          if (event.op === 'add') return m.reactions.some(same) ? m : { ...m, reactions: [...m.reactions, reaction] };
          return { ...m, reactions: m.reactions.filter((r) => !same(r)) };
        });
        if (changed) outcome.changed.push(id);
      }
      if (event.op !== 'add' && event.op !== 'remove') dropIf('event', (slot) => slot.window.has(id));
      return outcome;
    }
    case 'flags':
      return applyFlags(slots, event, outcome, dropIf);
    case 'edit': {
      const ids = new Set<number>(Array.isArray(event.message_ids) ? (event.message_ids as number[]) : []);
      if (typeof event.message_id === 'number') ids.add(event.message_id);
      const moved = event.new_stream_id !== undefined || event.subject !== undefined;
      // A move may bring messages into a channel or topic window without their content.
      dropIf('update', (slot) => [...ids].some((id) => slot.window.has(id)) || (moved && slot.narrow.channelId !== undefined));
      outcome.changed.push(...ids);
      return outcome;
    }
    case 'submessage': {
      const id = event.message_id as number;
      dropIf('update', (slot) => slot.window.has(id));
      return outcome;
    }
    case 'senders': {
      const person = event.person as Record<string, unknown> | undefined;
      if (event.op !== 'update' || !person || !Object.keys(person).some((k) => SHOWN_USER_KEYS.has(k))) return outcome;
      const userId = person.user_id;
      dropIf('user', (slot) => slot.window.some((m) => m.sender_id === userId || (Array.isArray(m.display_recipient) && m.display_recipient.some((r) => r.id === userId))));
      return outcome;
    }
    case 'channelNames': {
      // Messages show a channel's name only (`display_recipient`).
      if (event.op === 'create' || (event.op === 'update' && event.property !== 'name')) return outcome;
      const ids = new Set<unknown>(
        event.stream_id !== undefined ? [event.stream_id] : ((event.streams as { stream_id: number }[] | undefined) ?? []).map((s) => s.stream_id),
      );
      dropIf('channel', (slot) => ids.has(slot.narrow.channelId) || slot.window.some((m) => ids.has(m.stream_id)));
      return outcome;
    }
    case 'leave': {
      if (event.op !== 'remove') return outcome;
      const ids = new Set(((event.subscriptions as { stream_id: number }[] | undefined) ?? []).map((s) => s.stream_id));
      dropIf('subscription', (slot) => slot.narrow.channelId !== undefined && ids.has(slot.narrow.channelId));
      return outcome;
    }
    case 'realmPolicy': {
      const keys = event.op === 'update' ? [event.property] : Object.keys((event.data as object | undefined) ?? {});
      if (keys.some((k) => REALM_MESSAGE_KEYS.has(k as string))) return { ...outcome, dropAll: 'realm' };
      return outcome;
    }
    case 'linkifiers':
      // Topic links are computed with the organization's linkifiers.
      return { ...outcome, dropAll: 'realm' };
    case 'reset':
      return { ...outcome, dropAll: 'queue' };
    case undefined:
      return { ...outcome, dropAll: 'event', unknownType: event.type };
  }
}

function applyFlags(
  slots: readonly WindowSlot[],
  event: Event,
  outcome: EventOutcome,
  dropIf: (reason: WindowDropReason, test: (slot: WindowSlot) => boolean) => void,
): EventOutcome {
  const flag = event.flag as string;
  const op = event.op ?? event.operation;
  const add = op === 'add';
  if (!EDITABLE_FLAGS.includes(flag) || (op !== 'add' && op !== 'remove')) {
    dropIf('flags', () => true);
    return outcome;
  }
  const all = event.all === true;
  const ids = new Set((event.messages as number[] | undefined) ?? []);
  for (const slot of slots) {
    const touched = all ? slot.window.ids() : [...ids].filter((id) => slot.window.has(id));
    for (const id of touched) {
      let historical = false;
      slot.window.replace(id, (m) => {
        if (m.flags.includes('historical')) {
          historical = true;
          return m;
        }
        if (m.flags.includes(flag) === add) return m;
        return { ...m, flags: add ? withFlag(m.flags, flag) : m.flags.filter((f) => f !== flag) };
      });
      if (historical) outcome.drop.set(slot, 'flags');
      outcome.changed.push(id);
    }
  }
  return outcome;
}

/** Adds an editable flag where the server lists it: the editable flags come first, in their order. */
function withFlag(flags: readonly string[], flag: string): string[] {
  const rank = EDITABLE_FLAGS.indexOf(flag);
  const at = flags.filter((f) => {
    const r = EDITABLE_FLAGS.indexOf(f);
    return r >= 0 && r < rank;
  }).length;
  return [...flags.slice(0, at), flag, ...flags.slice(at)];
}
