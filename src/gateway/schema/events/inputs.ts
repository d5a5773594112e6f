/**
 * The arguments of the event subscriptions, checked and turned into the hub's filter terms before
 * anything is subscribed: every refusal is a BAD_USER_INPUT error, with no upstream call made.
 */
import { badInput } from '../../errors.js';
import { decodeCursor, type Cursor } from '../../events/buffer.js';
import type { FilterSpec, FilterTerm, NarrowState } from '../../events/filters.js';
import type { EventKind } from '../../events/model.js';
import { builder } from '../../builder.js';
import { NarrowInput, type NarrowShape } from '../messages/index.js';
import { EventKindEnum } from './kinds.js';

interface EventFilterShape {
  kinds?: EventKind[] | null;
  channelId?: number | null;
  topic?: string | null;
  narrow?: NarrowShape | null;
}

export const EventFilterInput = builder.inputRef<EventFilterShape>('EventFilterInput').implement({
  description:
    'Which events to deliver; every field given must hold. With `channelId`, `topic` or `narrow`, only events ' +
    'that happen in a matching conversation pass (messages and their edits, moves, deletions and reactions; ' +
    'typing; and, for channel and topic conditions, channel, subscription and topic-preference changes). ' +
    '`ResyncEvent`s always pass.',
  fields: (t) => ({
    kinds: t.field({ type: [EventKindEnum], required: false, description: 'Only these kinds (at least one). Default: every kind.' }),
    channelId: t.field({ type: 'Long', required: false, description: 'Only events in this channel.' }),
    topic: t.string({ required: false, description: 'Only events in this topic (case-insensitive; any channel unless channelId is set).' }),
    narrow: t.field({
      type: NarrowInput,
      required: false,
      description:
        'A narrow, evaluated by the gateway: channelId, channelName, topic, senderId, dmUserIds, dmIncluding, id, ' +
        '`is` (DM, UNREAD, STARRED, MENTIONED, ALERTED, RESOLVED) and `not`. Other conditions are refused.',
    }),
  }),
});

interface ConversationShape {
  channelId?: number | null;
  topic?: string | null;
  dmUserIds?: number[] | null;
}

export const ConversationInput = builder.inputRef<ConversationShape>('ConversationInput').implement({
  description: 'One conversation: a channel topic (`channelId` and `topic`), or a direct-message conversation (`dmUserIds`).',
  fields: (t) => ({
    channelId: t.field({ type: 'Long', required: false, description: 'The channel of a topic.' }),
    topic: t.string({ required: false, description: 'The topic (case-insensitive).' }),
    dmUserIds: t.field({ type: ['Long'], required: false, description: 'The other participants of a direct-message conversation.' }),
  }),
});

const SUBSCRIBABLE_STATES: ReadonlySet<string> = new Set<NarrowState>(['dm', 'unread', 'starred', 'mentioned', 'alerted', 'resolved']);

function positiveId(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw badInput(`${what} must be a positive ID.`);
  return value;
}

/** The filter terms of a narrow; refuses conditions an event cannot be tested against. */
export function termsFromNarrow(narrow: NarrowShape, negated = false): FilterTerm[] {
  const terms: FilterTerm[] = [];
  const add = (term: FilterTerm) => terms.push(negated ? { ...term, negated: true } : term);
  const refuse = (field: string) => {
    throw badInput(`NarrowInput.${field} cannot be used in a subscription: events do not carry what it needs.`);
  };
  if (narrow.channels != null) refuse('channels');
  if (narrow.has != null) refuse('has');
  if (narrow.search != null) refuse('search');
  if (narrow.channelId != null && narrow.channelName != null) throw badInput('NarrowInput: give channelId or channelName, not both.');
  if (narrow.channelId != null) add({ operator: 'channel', channelId: positiveId(narrow.channelId, 'NarrowInput.channelId') });
  if (narrow.channelName != null) add({ operator: 'channelName', name: narrow.channelName });
  if (narrow.topic != null) add({ operator: 'topic', topic: narrow.topic });
  if (narrow.senderId != null) add({ operator: 'sender', userId: positiveId(narrow.senderId, 'NarrowInput.senderId') });
  if (narrow.dmUserIds != null) {
    if (narrow.dmUserIds.length === 0) throw badInput('NarrowInput.dmUserIds must name at least one user.');
    add({ operator: 'dm', userIds: narrow.dmUserIds.map((id) => positiveId(id, 'NarrowInput.dmUserIds')) });
  }
  if (narrow.dmIncluding != null) add({ operator: 'dmIncluding', userId: positiveId(narrow.dmIncluding, 'NarrowInput.dmIncluding') });
  if (narrow.id != null) add({ operator: 'id', messageId: positiveId(narrow.id, 'NarrowInput.id') });
  for (const state of narrow.is ?? []) {
    if (!SUBSCRIBABLE_STATES.has(state)) refuse(`is: ${state.toUpperCase()}`);
    add({ operator: 'is', state: state as NarrowState });
  }
  if (narrow.not) {
    if (negated) throw badInput('NarrowInput.not cannot be nested.');
    terms.push(...termsFromNarrow(narrow.not, true));
  }
  return terms;
}

export function filterFromInput(input: EventFilterShape | null | undefined): FilterSpec {
  if (!input) return {};
  const spec: FilterSpec = {};
  if (input.kinds != null) {
    if (input.kinds.length === 0) throw badInput('EventFilterInput.kinds must name at least one kind (or be left out for all).');
    spec.kinds = input.kinds;
  }
  const terms: FilterTerm[] = [];
  if (input.channelId != null) terms.push({ operator: 'channel', channelId: positiveId(input.channelId, 'EventFilterInput.channelId') });
  if (input.topic != null) terms.push({ operator: 'topic', topic: input.topic });
  if (input.narrow) terms.push(...termsFromNarrow(input.narrow));
  if (terms.length > 0) spec.terms = terms;
  return spec;
}

export function conversationTerms(input: ConversationShape): FilterTerm[] {
  const channel = input.channelId != null || input.topic != null;
  const direct = input.dmUserIds != null;
  if (channel === direct) throw badInput('ConversationInput: give channelId and topic, or dmUserIds.');
  if (direct) {
    if (input.dmUserIds!.length === 0) throw badInput('ConversationInput.dmUserIds must name at least one user.');
    return [{ operator: 'dm', userIds: input.dmUserIds!.map((id) => positiveId(id, 'ConversationInput.dmUserIds')) }];
  }
  if (input.channelId == null || input.topic == null) throw badInput('ConversationInput: a channel conversation needs channelId and topic.');
  return [
    { operator: 'channel', channelId: positiveId(input.channelId, 'ConversationInput.channelId') },
    { operator: 'topic', topic: input.topic },
  ];
}

export function cursorFromArgument(after: string | null | undefined): Cursor | undefined {
  if (after == null) return undefined;
  const cursor = decodeCursor(after);
  if (!cursor) throw badInput('`after` is not a cursor this gateway handed out.');
  return cursor;
}
