/**
 * Resolving operands to users, channels and messages, and checking them eagerly with Zulip's
 * BAD_NARROW messages (zerver/lib/narrow.py). A channel the viewer may not even see counts as unknown.
 */
import type { Channel, Store, User } from '../store.js';
import { type NarrowTerm, IS_OPERANDS, HAS_OPERANDS, badNarrow } from './parse.js';

// ---- operand resolution ------------------------------------------------------------------------

export function userIdOf(store: Store, operand: unknown): number | undefined {
  if (typeof operand === 'number') return store.users.has(operand) ? operand : undefined;
  if (typeof operand === 'string') {
    if (/^\d+$/.test(operand) && store.users.has(Number(operand))) return Number(operand);
    return store.userByEmail(operand.trim())?.user_id;
  }
  return undefined;
}

/** A list of users given as ids, emails, or one comma-separated email string. */
export function userIdsOf(store: Store, operand: unknown): number[] | undefined {
  const list = typeof operand === 'string' ? operand.split(',').map((s) => s.trim()).filter(Boolean) : operand;
  if (typeof list === 'number') return userIdsOf(store, [list]);
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const ids: number[] = [];
  for (const x of list) {
    const id = userIdOf(store, x);
    if (id === undefined) return undefined;
    ids.push(id);
  }
  return ids;
}

export function channelOf(store: Store, operand: unknown): Channel | undefined {
  if (typeof operand === 'number') return store.channels.get(operand);
  if (typeof operand === 'string') {
    if (/^\d+$/.test(operand) && store.channels.has(Number(operand))) return store.channels.get(Number(operand));
    return store.channelByName(operand);
  }
  return undefined;
}

export function messageIdOf(operand: unknown): number | undefined {
  if (typeof operand === 'number') return operand;
  if (typeof operand === 'string' && /^\d+$/.test(operand)) return Number(operand);
  return undefined;
}

/** A topic operand as stored: the organization's empty-topic display name means the empty topic. */
export function topicOperand(store: Store, operand: string): string {
  return operand === store.realm.empty_topic_display_name ? '' : operand;
}

/**
 * Checks operands eagerly (so a bad narrow fails even when no message is scanned), with Zulip's
 * BAD_NARROW messages. `viewer` decides which channels count as known.
 */
export function validateNarrow(store: Store, viewer: User, narrow: NarrowTerm[]): void {
  for (const { operator, operand } of narrow) {
    switch (operator) {
      case 'channel': {
        const channel = channelOf(store, operand);
        if (!channel || !store.canAccessChannelMetadata(viewer, channel)) throw badNarrow(`unknown channel ${String(operand)}`);
        break;
      }
      case 'channels':
        if (operand !== 'public' && operand !== 'web-public') throw badNarrow(`unknown channels operand ${String(operand)}`);
        break;
      case 'sender':
      case 'dm-including':
        if (userIdOf(store, operand) === undefined) throw badNarrow(`unknown user ${String(operand)}`);
        break;
      case 'dm':
        if (userIdsOf(store, operand) === undefined) throw badNarrow(`unknown user in ${String(operand)}`);
        break;
      case 'is':
        if (!IS_OPERANDS.has(operand as string)) throw badNarrow(`unknown 'is' operand ${String(operand)}`);
        break;
      case 'has':
        if (!HAS_OPERANDS.has(operand as string)) throw badNarrow(`unknown 'has' operand ${String(operand)}`);
        break;
      case 'id':
      case 'near':
      case 'with':
        if (messageIdOf(operand) === undefined) throw badNarrow('Invalid message ID');
        break;
      case 'topic':
      case 'search':
        break;
      default:
        throw badNarrow(`unknown operator ${operator}`);
    }
  }
}
