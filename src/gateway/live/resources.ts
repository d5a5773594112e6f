/**
 * The resources a live query reads and the events that change them: the one vocabulary shared by
 * what an execution records (live/reads.ts, schema/unreads.ts) and what a credential's event
 * stream invalidates (live/queries.ts). Names are built from Zulip's own IDs (`zulipId`), never from
 * a GraphQL `id`, so they hold whatever form the `id` fields take.
 *
 * - `User:<id>`, `Channel:<id>`, `Message:<id>`, `UserGroup:<id>`: an entity any of whose fields
 *   the query resolved (`Me` is the caller's `User`).
 * - `Query.<field>`: a root field the query ran; events that add or remove entities from a root
 *   list (a new user, a new channel) invalidate it.
 * - `Unreads`: the caller's unread counts (`unreads`, `Channel.unreadCount`, `Topic.unreadCount`).
 * - `Narrow:*`, `Narrow:channel:<id>`, `Narrow:dm`, `Narrow:flags`: the message lists the query
 *   read, by the narrow it asked for. A narrow that pins one channel (or direct messages) is
 *   invalidated by messages there only; any other narrow by every message. Narrows on message
 *   states (`is:`) also by flag changes.
 * - `*`: every live query of the credential; events this table does not model (realm settings,
 *   drafts, a replaced queue) invalidate it, so no change is ever missed, only re-run more widely.
 *
 * Nothing here is scoped: live/queries.ts prefixes every name with its credential's scope.
 */
import type { GatewayEvent } from '../events/model.js';
import { LIVE_BY_KIND } from '../events/types.js';

/** Every live query of a credential records it; see the module comment. */
export const EVERYTHING = '*';
export const UNREADS = 'Unreads';

/** The entity types whose fields record a resource, and how their backing wire object names it. */
export const ENTITY_IDS: Readonly<Record<string, { resource: string; id: (source: Record<string, unknown>) => unknown }>> = {
  User: { resource: 'User', id: (u) => u.user_id },
  Me: { resource: 'User', id: (u) => u.user_id },
  Channel: { resource: 'Channel', id: (c) => c.stream_id },
  Message: { resource: 'Message', id: (m) => m.id },
  UserGroup: { resource: 'UserGroup', id: (g) => g.id },
};

/** The narrow argument as `messages(narrow:)` receives it (NarrowInput), only the fields read here. */
interface NarrowArgument {
  channelId?: number | null;
  dmUserIds?: readonly number[] | null;
  dmIncluding?: number | null;
  is?: readonly string[] | null;
  not?: NarrowArgument | null;
}

/** The resources a message list of this narrow depends on. */
export function narrowResources(narrow: NarrowArgument | null | undefined): string[] {
  const names: string[] = [];
  if (typeof narrow?.channelId === 'number') names.push(`Narrow:channel:${narrow.channelId}`);
  else if (narrow?.dmUserIds || typeof narrow?.dmIncluding === 'number') names.push('Narrow:dm');
  else names.push('Narrow:*');
  if ((narrow?.is && narrow.is.length > 0) || (narrow?.not?.is && narrow.not.is.length > 0)) names.push('Narrow:flags');
  return names;
}

/** The resources a root field's execution depends on, besides the entities it resolves. */
export function rootFieldResources(field: string, args: Record<string, unknown>): string[] {
  const names = [`Query.${field}`];
  if (field === 'messages') names.push(...narrowResources(args.narrow as NarrowArgument | null | undefined));
  return names;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const ints = (v: unknown): number[] => (Array.isArray(v) ? v.filter(isInt) : []);

/** Where new or moved messages land: the narrows that may now list them. */
function messageNarrows(channelId: unknown): string[] {
  return isInt(channelId) ? ['Narrow:*', `Narrow:channel:${channelId}`, `Channel:${channelId}`, 'Query.topics'] : ['Narrow:*', 'Narrow:dm'];
}

/** The resources an event may have changed, for the credential whose queue delivered it. */
export function eventResources(event: GatewayEvent): string[] {
  // Which of these an event's kind takes is the event table's (`live`, events/types.ts).
  const effect = LIVE_BY_KIND[event.kind] ?? 'everything';
  switch (effect) {
    case 'newMessage': {
      if (event.kind !== 'MESSAGE') return [EVERYTHING];
      const { message, flags } = event;
      const names = messageNarrows(message.type === 'stream' ? message.stream_id : undefined);
      if (!flags.includes('read')) names.push(UNREADS);
      return names;
    }
    case 'editedMessage': {
      if (event.kind !== 'MESSAGE_UPDATED') return [EVERYTHING];
      const names = [`Message:${event.wire.message_id}`];
      // An edit changes the counts only by adding or removing a mention of an unread message.
      if (Array.isArray(event.wire.flags) && !event.wire.flags.includes('read')) names.push(UNREADS);
      return names;
    }
    case 'movedMessages': {
      if (event.kind !== 'MESSAGE_MOVED') return [EVERYTHING];
      const { wire } = event;
      return [
        ...wire.message_ids.map((id) => `Message:${id}`),
        ...messageNarrows(wire.stream_id),
        ...(isInt(wire.new_stream_id) ? messageNarrows(wire.new_stream_id) : []),
        UNREADS,
      ];
    }
    case 'deletedMessages':
      if (event.kind !== 'MESSAGE_DELETED') return [EVERYTHING];
      return [...event.messageIds.map((id) => `Message:${id}`), ...messageNarrows(event.wire.stream_id), UNREADS];
    case 'messageEntity': {
      if (!('wire' in event)) return [EVERYTHING];
      const id = event.wire.message_id;
      return isInt(id) ? [`Message:${id}`] : [];
    }
    case 'flags': {
      if (event.kind !== 'FLAGS_ADDED' && event.kind !== 'FLAGS_REMOVED') return [EVERYTHING];
      const { wire } = event;
      // `all: true` (every message marked read) names no messages: every list may change.
      const names = wire.all === true ? ['Narrow:*'] : wire.messages.map((id) => `Message:${id}`);
      names.push('Narrow:flags');
      if (wire.flag === 'read' || wire.flag === 'mentioned' || wire.flag === 'wildcard_mentioned') names.push(UNREADS);
      return names;
    }
    case 'nothing':
      return [];
    case 'presence':
      return ['Query.presence', 'Query.presences'];
    case 'user': {
      if (!('wire' in event)) return [EVERYTHING];
      const person = event.wire.person as { user_id?: unknown } | undefined;
      const names = isInt(person?.user_id) ? [`User:${person.user_id}`] : [EVERYTHING];
      if (event.wire.op !== 'update') names.push('Query.users', 'Query.user', 'Query.userByEmail');
      return names;
    }
    case 'channel': {
      if (!('wire' in event)) return [EVERYTHING];
      const streams = Array.isArray(event.wire.streams) ? (event.wire.streams as { stream_id?: unknown }[]) : [];
      const ids = isInt(event.wire.stream_id) ? [event.wire.stream_id] : streams.map((s) => s.stream_id).filter(isInt);
      const names = ids.map((id) => `Channel:${id}`);
      if (event.wire.op !== 'update') names.push('Query.channels', 'Query.channel', 'Query.channelByName', 'Query.subscriptions', UNREADS);
      return names;
    }
    case 'subscription': {
      if (!('wire' in event)) return [EVERYTHING];
      const { wire } = event;
      const listed = Array.isArray(wire.subscriptions) ? (wire.subscriptions as { stream_id?: unknown }[]).map((s) => s.stream_id) : [];
      const ids = [...(isInt(wire.stream_id) ? [wire.stream_id] : []), ...ints(wire.stream_ids), ...listed.filter(isInt)];
      // Subscribing, leaving and muting change which messages count as unread.
      return [...ids.map((id) => `Channel:${id}`), 'Query.channels', 'Query.subscriptions', UNREADS];
    }
    case 'userTopic':
      if (!('wire' in event)) return [EVERYTHING];
      return isInt(event.wire.stream_id) ? [`Channel:${event.wire.stream_id}`, UNREADS] : [UNREADS];
    case 'userGroup':
      if (!('wire' in event)) return [EVERYTHING];
      return isInt(event.wire.group_id) ? [`UserGroup:${event.wire.group_id}`, 'Query.userGroups'] : [EVERYTHING];
    case 'everything':
      // Realm and settings changes, drafts, a replaced queue (RESYNC), a restart, an unknown event.
      return [EVERYTHING];
  }
}
