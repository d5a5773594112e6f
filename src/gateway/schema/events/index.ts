/**
 * Real-time events as GraphQL subscriptions (over graphql-ws and SSE alike):
 *
 * - `events(filter, after)`: every event kind, as the `ChatEvent` union, filtered by kind,
 *   channel, topic and narrow;
 * - `messages(narrow, after)`: new, edited, moved and deleted messages and reactions in a narrow;
 * - `typing(conversation)`: who is typing in one conversation, as a state that changes.
 *
 * Every event carries its gateway `cursor`; subscribing again with `after: <last cursor>` replays
 * what was missed while the credential's queue and replay buffer live, or starts with a
 * `ResyncEvent` telling the client to refetch by query (docs/events.md).
 *
 * The path of an event: the hub (../../events: queue.ts polls, session.ts buffers and fans out)
 * hands deliveries to stream.ts, which makes them payloads; the types in this folder resolve them
 * (payloads name messages and users, resolved through the same loaders as queries).
 */
import { builder } from '../../builder.js';
import type { Context } from '../../context.js';
import type { FilterSpec } from '../../events/filters.js';
import { NarrowInput } from '../messages/index.js';
import { ConversationInput, EventFilterInput, conversationTerms, cursorFromArgument, filterFromInput, termsFromNarrow } from './inputs.js';
import { throwIfEnded, type Ended, type Payload } from './payloads.js';
import { eventPayloads, open } from './stream.js';
import { TypingStateRef, typingStates, type TypingStatePayload } from './typing-events.js';
import { ChatEventUnion, MESSAGE_STREAM_KINDS, MessageStreamEventUnion } from './unions.js';

builder.subscriptionType({ description: 'Real-time events from the chat server.' });

const AFTER_DESCRIPTION =
  'Resume after this cursor (the `cursor` of the last event received): missed events are replayed first, or a ' +
  '`ResyncEvent` comes first when they can no longer be.';

/** The payloads of the events `spec` keeps, resuming after the `after` argument's cursor if given. */
async function filteredEvents(ctx: Context, spec: FilterSpec, after: string | null | undefined): Promise<AsyncIterableIterator<Payload | Ended>> {
  const cursor = cursorFromArgument(after);
  return eventPayloads(ctx, await open(ctx, spec, cursor), spec);
}

/** For the union fields: their resolveType picks the member type from the event's kind. */
const resolveUnionMember = (item: Payload | Ended) => throwIfEnded(item) as never;

builder.subscriptionField('events', (t) =>
  t.field({
    zulip: { reaches: ['register-queue', 'get-events', 'delete-queue'] },
    type: ChatEventUnion,
    description:
      'Every real-time event of the caller, filtered. One upstream event queue serves all subscriptions of a ' +
      'credential.',
    args: {
      filter: t.arg({ type: EventFilterInput, required: false, description: 'Which events; default: all.' }),
      after: t.arg.string({ required: false, description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, args, ctx) => filteredEvents(ctx, filterFromInput(args.filter), args.after),
    resolve: resolveUnionMember,
  }),
);

builder.subscriptionField('messages', (t) =>
  t.field({
    zulip: { reaches: ['get-events'] },
    type: MessageStreamEventUnion,
    description: 'New, edited, moved and deleted messages, and reactions, in a narrow (default: everything the caller receives).',
    args: {
      narrow: t.arg({ type: NarrowInput, required: false, description: 'Which messages (evaluated by the gateway; see EventFilterInput.narrow).' }),
      after: t.arg.string({ required: false, description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, args, ctx) =>
      filteredEvents(ctx, { kinds: MESSAGE_STREAM_KINDS, terms: args.narrow ? termsFromNarrow(args.narrow) : [] }, args.after),
    resolve: resolveUnionMember,
  }),
);

builder.subscriptionField('typing', (t) =>
  t.field({
    zulip: { reaches: ['get-events'] },
    type: TypingStateRef,
    description:
      'Who is typing in one conversation. A new state is sent whenever someone starts, stops, or stops renewing ' +
      'their start for the server\u2019s typing expiry period.',
    args: { conversation: t.arg({ type: ConversationInput, required: true, description: 'The conversation.' }) },
    subscribe: async (_root, args, ctx) => {
      const spec: FilterSpec = { kinds: ['TYPING_STARTED', 'TYPING_STOPPED'], terms: conversationTerms(args.conversation) };
      const subscriber = await open(ctx, spec);
      return typingStates(ctx, subscriber, subscriber.typingExpiryMs);
    },
    resolve: (item: TypingStatePayload | Ended) => throwIfEnded(item),
  }),
);
